/** What `GET /app/sites/{id}/repo-check` answers. */
export interface RepoCheckResult {
  /** A Dockerfile exists at the path asked for (default `Dockerfile`). */
  dockerfile: boolean;
  /** Present when the repository builds from a Dockerfile elsewhere than the path asked for. */
  dockerfile_found?: { path: string };
  /** Facts of the Dockerfile that would be built (the one asked for, else the one found); null without one. */
  analysis: DockerfileAnalysis | null;
  auto: AutoBuild;
  setup: { vars: SetupVar[]; notes: SetupNote[] };
}

export interface DockerfileAnalysis {
  /** Ports from `EXPOSE` of the final stage, `ARG`/`ENV` substituted; the first is the one to use. */
  expose: number[];
  /** What the final stage runs, from `ENTRYPOINT` and `CMD`, as one shell-like line; null when nothing. */
  command: string | null;
  /** `web` when the image serves HTTP (a port, or a known server command), else `cli`. */
  kind: "web" | "cli";
  /** `not-a-server` when nothing listens. */
  warnings: string[];
}

/** How Reposite would build the repository without a Dockerfile of its own. */
export type AutoBuild =
  | {
      found: true;
      /** What was detected, for example `Vite (React)`, `Express`, `Django`, `Go`. */
      name: string;
      /** Install command, or null when nothing is installed. */
      install: string | null;
      /** Build command, or null. */
      build: string | null;
      /** Static sites: the folder the build writes. */
      output?: string;
      /** Servers: the command that starts them. */
      start?: string;
      /** The Dockerfile it would write. */
      dockerfile: string;
      /** What may not work as written, for example an app that cannot be told its `/app/` base path. */
      warnings: string[];
    }
  | { found: false; reason: string };

export interface SetupVar {
  name: string;
  required: boolean;
  description: string;
  /** `auto`: comes with a ready value; `generate`: any long random string; `secret`: only the owner has it. */
  input: "auto" | "generate" | "secret";
  /** Ready value for `auto`, the example's default when harmless, else "". */
  value: string;
}

export interface SetupNote {
  /** `memory` means the app (or its build) wants more than the free 512 MB. */
  kind: string;
  message: string;
  /** For `memory`: megabytes wanted. */
  needed_mb?: number;
}

/**
 * Base images the written Dockerfiles start from, by logical name. Operators map them to their
 * own mirror; tests map them to images built locally.
 */
export interface BaseImages {
  /** Node.js with npm (corepack for pnpm/yarn), e.g. `node:22-bookworm-slim`. */
  node: string;
  /** Python 3 with pip, e.g. `python:3.12-slim`. */
  python: string;
  /** Go toolchain for the build stage, e.g. `golang:1.23-bookworm`. */
  go: string;
  /** Small image for compiled binaries, e.g. `gcr.io/distroless/static-debian12` or `debian:bookworm-slim`. */
  runtime: string;
  /**
   * Runs the small static server Reposite adds to built sites (`.reposite/serve.mjs`, index
   * fallback, `/health`): a Node.js image, usually the slim one.
   */
  static: string;
  /** Bun, e.g. `oven/bun:1`. */
  bun: string;
}

export const DEFAULT_BASE_IMAGES: BaseImages = {
  node: "node:22-bookworm-slim",
  python: "python:3.12-slim-bookworm",
  go: "golang:1.23-bookworm",
  runtime: "debian:bookworm-slim",
  static: "node:22-bookworm-slim",
  bun: "oven/bun:1",
};
