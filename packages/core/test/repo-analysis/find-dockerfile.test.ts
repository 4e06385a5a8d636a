import { describe, expect, it } from "vitest";
import { findDockerfile, parseMemory, readComposeServices } from "../../src/repo-analysis/find-dockerfile.js";
import { readYaml } from "../../src/repo-analysis/formats/yaml.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

const tree = (...paths: string[]) => sourceTreeFromFiles(Object.fromEntries(paths.map((path) => [path, "FROM scratch\n"])));

describe("findDockerfile", () => {
  it("answers true when the asked path exists", () => {
    expect(findDockerfile(tree("Dockerfile", "docker/Dockerfile"))).toEqual({ dockerfile: true });
    expect(findDockerfile(tree("Dockerfile", "docker/Dockerfile"), "./docker/Dockerfile")).toEqual({ dockerfile: true });
  });

  it("answers false with nothing found", () => {
    expect(findDockerfile(tree("README.md", "src/index.ts"))).toEqual({ dockerfile: false });
  });

  it("follows the compose file's build context and dockerfile", () => {
    const files = sourceTreeFromFiles({
      "docker-compose.yml": [
        "services:",
        "  db:",
        "    image: postgres:16",
        "  web:",
        "    build:",
        "      context: ./app",
        "      dockerfile: ../ops/web.Dockerfile",
        "    ports:",
        '      - "3000:3000"',
      ].join("\n"),
      "ops/web.Dockerfile": "FROM node:22\n",
      "docker/Dockerfile": "FROM node:22\n",
    });
    expect(findDockerfile(files)).toEqual({ dockerfile: false, found: { path: "ops/web.Dockerfile" } });
  });

  it("reads a short `build: dir` and prefers the production compose file", () => {
    const files = sourceTreeFromFiles({
      "compose.yaml": "services:\n  app:\n    build: ./dev-server\n",
      "docker-compose.prod.yml": "services:\n  app:\n    build: ./server\n",
      "server/Dockerfile": "FROM node:22\n",
      "dev-server/Dockerfile": "FROM node:22\n",
    });
    expect(findDockerfile(files)).toEqual({ dockerfile: false, found: { path: "server/Dockerfile" } });
  });

  it("skips compose builds whose Dockerfile is missing", () => {
    const files = sourceTreeFromFiles({
      "compose.yml": "services:\n  api:\n    build: { context: api }\n",
      "deploy/Dockerfile": "FROM node:22\n",
    });
    expect(findDockerfile(files)).toEqual({ dockerfile: false, found: { path: "deploy/Dockerfile" } });
  });

  it.each([
    { paths: ["Dockerfile", "Dockerfile.prod"], asked: "Dockerfile.web", found: "Dockerfile" },
    { paths: ["Dockerfile.dev", "Dockerfile.prod"], asked: "Dockerfile", found: "Dockerfile.prod" },
    { paths: ["Dockerfile.production", "docker/Dockerfile"], asked: "Dockerfile", found: "Dockerfile.production" },
    { paths: ["build/Dockerfile", ".docker/Dockerfile"], asked: "Dockerfile", found: ".docker/Dockerfile" },
    { paths: ["Containerfile"], asked: "Dockerfile", found: "Containerfile" },
    { paths: ["dev.Dockerfile", "app.Dockerfile", "prod.Dockerfile"], asked: "Dockerfile", found: "prod.Dockerfile" },
    { paths: ["worker.Dockerfile", "api.Dockerfile"], asked: "Dockerfile", found: "api.Dockerfile" },
    { paths: ["Dockerfile.web", "Dockerfile.dev"], asked: "Dockerfile", found: "Dockerfile.web" },
    {
      paths: ["services/api/Dockerfile", "apps/web/Dockerfile", "a/b/c/d/Dockerfile"],
      asked: "Dockerfile",
      found: "apps/web/Dockerfile",
    },
    {
      paths: ["node_modules/x/Dockerfile", "examples/demo/Dockerfile", "test/Dockerfile"],
      asked: "Dockerfile",
      found: undefined,
    },
    { paths: [".devcontainer/Dockerfile", "Dockerfile.dockerignore"], asked: "Dockerfile", found: ".devcontainer/Dockerfile" },
    { paths: ["Dockerfile.dev", ".devcontainer/Dockerfile"], asked: "Dockerfile", found: "Dockerfile.dev" },
  ])("among $paths finds $found", ({ paths, asked, found }) => {
    expect(findDockerfile(tree(...paths), asked)).toEqual(
      found ? { dockerfile: false, found: { path: found } } : { dockerfile: false }
    );
  });
});

describe("readComposeServices", () => {
  it("reads build, image, both environment forms and memory limits", () => {
    const compose = [
      "# a comment",
      'version: "3.9"',
      "x-common-env: &common",
      "  LOG_LEVEL: info",
      "  TZ: UTC",
      "services:",
      "  web:",
      "    build: .",
      "    environment:",
      "      <<: *common",
      "      NODE_ENV: production",
      '      DATABASE_URL: "postgres://app:${DB_PASSWORD}@db:5432/app" # inline comment',
      "      EMPTY:",
      "    deploy:",
      "      resources:",
      "        limits:",
      "          memory: 1G",
      "  worker:",
      "    image: ghcr.io/acme/worker:1.2",
      "    mem_limit: 768m",
      "    environment:",
      "    - QUEUE=jobs",
      "    - SECRET_KEY",
      "    - 'QUOTED=a # not a comment'",
    ].join("\n");
    expect(readComposeServices(compose)).toEqual([
      {
        name: "web",
        image: null,
        build: { context: ".", dockerfile: "Dockerfile" },
        environment: [
          { name: "LOG_LEVEL", value: "info" },
          { name: "TZ", value: "UTC" },
          { name: "NODE_ENV", value: "production" },
          { name: "DATABASE_URL", value: "postgres://app:${DB_PASSWORD}@db:5432/app" },
          { name: "EMPTY", value: null },
        ],
        memoryLimitMb: 1024,
      },
      {
        name: "worker",
        image: "ghcr.io/acme/worker:1.2",
        build: null,
        environment: [
          { name: "QUEUE", value: "jobs" },
          { name: "SECRET_KEY", value: null },
          { name: "QUOTED", value: "a # not a comment" },
        ],
        memoryLimitMb: 768,
      },
    ]);
  });

  it("gives nothing for text that is not a compose file", () => {
    expect(readComposeServices("just: [unclosed\n  - x: : :\n\tbad")).toEqual([]);
    expect(readComposeServices("")).toEqual([]);
  });
});

describe("readYaml", () => {
  it("reads what compose files use, multi-line flow collections and plain scalars too", () => {
    const text = [
      "list:",
      "  - a",
      '  - "b: c"',
      "  - key: 1",
      "    other: two",
      "  -",
      "    nested: yes",
      "flow: [1, 'two', {three: 3}]",
      "map: {a: x, b: [y, z]}",
      "block: |",
      "  line one",
      "  line two",
      "tagged: !reset null",
      "base: &base { x: 1, y: 2 }",
      "derived:",
      "  <<: *base",
      "  y: 3",
      "empty:",
      "compact:",
      "- one",
      "- two",
      "command: [",
      '  "npm", "start"]',
      "description: a plain scalar",
      "  over two lines",
    ].join("\n");
    expect(readYaml(text)).toEqual({
      list: ["a", "b: c", { key: 1, other: "two" }, { nested: "yes" }],
      flow: [1, "two", { three: 3 }],
      map: { a: "x", b: ["y", "z"] },
      block: "line one\nline two\n",
      tagged: null,
      base: { x: 1, y: 2 },
      derived: { x: 1, y: 3 },
      empty: null,
      compact: ["one", "two"],
      command: ["npm", "start"],
      description: "a plain scalar over two lines",
    });
  });

  it("answers null for text that is not YAML, and refuses alias bombs", () => {
    expect(readYaml("services: [unclosed")).toBeNull();
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]", "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]", "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]"].join("\n");
    expect(() => readYaml(bomb)).not.toThrow();
    expect(readYaml(bomb)).toBeNull();
  });
});

describe("parseMemory", () => {
  it.each([
    ["512m", 512],
    ["1G", 1024],
    ["1.5gb", 1536],
    ["2048M", 2048],
    ["1073741824", 1024],
    ["2GiB", 2048],
    ["lots", null],
  ])("%s → %s", (text, mb) => {
    expect(parseMemory(text)).toBe(mb);
  });
});
