import type { RepoAccessStatus, RepoConnectStarted, RepoLookup } from "@reposite/contract";

/** `GET /app/repohost/repo?url=`: whether the repository exists for this account, and is private. */
export type RepoAccessCheck = RepoLookup;
/** `POST /app/repohost/connect`: the person opens `url` in a browser and authorizes. */
export type RepohostConnect = RepoConnectStarted;
/** `GET /app/repohost`: `connected` is true once the person authorized. */
export type RepohostStatus = RepoAccessStatus;
