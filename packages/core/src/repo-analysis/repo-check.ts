// What `GET /app/sites/{id}/repo-check` answers is the contract's: the analysers below return
// these types, and the server checks its answers against the same schemas.
export type { AutoBuild, DockerfileAnalysis, RepoCheckResult, SetupNote, SetupVar } from "@reposite/contract";

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
  /** Rust toolchain (cargo) for the build stage, e.g. `rust:1-slim-bookworm`; programs run on `runtime`. */
  rust: string;
  /** Deno, e.g. `denoland/deno:2`. */
  deno: string;
}

export const DEFAULT_BASE_IMAGES: BaseImages = {
  node: "node:22-bookworm-slim",
  python: "python:3.12-slim-bookworm",
  go: "golang:1.23-bookworm",
  runtime: "debian:bookworm-slim",
  static: "node:22-bookworm-slim",
  bun: "oven/bun:1",
  rust: "rust:1-slim-bookworm",
  deno: "denoland/deno:2",
};
