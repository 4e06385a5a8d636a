#!/usr/bin/env bash
go build -o ./app main.go rooms.go routes.go stats.go
