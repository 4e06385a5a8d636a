import type { DeploymentStatus, JobStreamEvent } from "../types.js";

/** How the app's image is made: the repository's Dockerfile, one Reposite writes (`auto`), or a bare box. */
export type BuildMode = "dockerfile" | "auto" | "bare";

/** Base images a `bare` box can start from. */
export type BareBaseImage = "ubuntu:24.04" | "debian:bookworm-slim" | "alpine:3.20" | "node:22-bookworm" | "python:3.12-bookworm";

/** How a project's app is built and run, as the deployment read shows it. */
export interface DeploymentSetup {
  build_mode: BuildMode;
  /** Relative to the repository root; used with `dockerfile`. */
  dockerfile_path: string;
  /** Required with `bare`. */
  base_image: BareBaseImage | null;
  /** What the app listens on (on `0.0.0.0`), given to it as `PORT`. Default 3000. */
  port: number;
  /** Branch, tag or commit; `HEAD` is the default branch. */
  ref: string;
  /** Must answer before traffic switches to a new build. Default `/`. */
  health_path: string;
  /** Where the app keeps data that survives deploys (`/data`); null for none. */
  volume_path: string | null;
}

/** Body of `PUT /app/sites/{site_id}/deployment`: every field optional; the fields sent change, the rest stay. */
export type DeploymentSetupInput = Partial<DeploymentSetup>;

/** A deploy run's states; `queued` waits for a build slot. */
export type RunStatus = "queued" | "building" | "starting" | "done" | "failed";

/** What went wrong in a failed run, for a person. */
export interface Diagnosis {
  /** Names the case for programs (`build_step_failed`, `out_of_memory`, `not_listening`, …). */
  kind: string;
  title: string;
  detail: string;
  fix: string;
  /** For a resource that ran out: which, and the MB wanted. */
  limit?: { kind: "memory" | "disk"; needed: number };
  [field: string]: unknown;
}

/** `last_run` of the deployment read. */
export interface LastRun {
  run_id: string;
  status: RunStatus;
  finished_at: string | null;
  /** Why it failed, or null. */
  reason: string | null;
  diagnosis: Diagnosis | null;
  /** The app was killed for using more memory than its limit in this run. */
  last_exit_oom: boolean;
}

/** `GET /app/sites/{site_id}/deployment`: the setup, then the app's state. */
export interface DeploymentView extends DeploymentSetup {
  /** The project's slug; `resetData` wants it as `confirm`. */
  slug: string | null;
  status: DeploymentStatus;
  /** The app's address; ends in `/app/`. */
  url: string;
  last_run: LastRun | null;
  last_exit_oom: boolean;
  /** Names of the env values set (values are never shown). */
  env_keys: string[];
  /** Deploys build the Dockerfile a fix made, not the repository's. */
  override: boolean;
  /** Why the service stopped the app (its disk went over), or null. */
  stopped_reason: string | null;
  [field: string]: unknown;
}

/** `GET …/deployment/env`, and the answer of setting it: every name, every value masked. */
export interface EnvView {
  env: Record<string, string>;
}

/** `202` answer of `POST …/deployment/deploy`. */
export interface DeployStarted {
  /** The job streaming the build log; it has ended when `finished_at` is set. */
  job_id: string;
  run_id: string;
}

/** `202` answer of `POST …/deployment/fix`: the fix's own job, streaming every attempt. */
export interface FixStarted {
  job_id: string;
  /** `model`: a language model writes each Dockerfile; `rules`: the fixes the diagnosis knows. */
  writer: "model" | "rules";
  max_attempts: number;
}

/** One deploy in `GET …/deployment/runs` (the last 20). */
export interface RunView {
  run_id: string;
  status: RunStatus;
  /** The job streaming this run's log (forgotten ten minutes after it ends). */
  job_id: string | null;
  ref: string;
  build_mode: BuildMode;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  reason: string | null;
  exit_oom: boolean;
  diagnosis: Diagnosis | null;
  /** Where the Dockerfile came from. */
  dockerfile_source: "repository" | "override" | "fix";
  [field: string]: unknown;
}

/** One run read singly: with the kept end of its log. */
export interface RunDetailView extends RunView {
  log_lines: number;
  log_tail: string;
}

/** Disk use of the app: image, writable layer and data volume together against its limit. */
export interface StorageUsage {
  used_mb: number;
  limit_mb: number;
  /** Over the limit: the service stops the app. */
  over: boolean;
  image_mb: number;
  container_mb: number;
  volume_mb: number;
  measured_at: string;
}

/** `GET …/deployment/metrics`: what the app uses now. */
export interface MetricsView {
  running: boolean;
  /** Percent of the app's own share (100 = all of its `cpus`). */
  cpu: { percent: number; cpus: number };
  memory: { used_mb: number; limit_mb: number };
  /** Bytes since the container started. */
  network: { rx_bytes: number; tx_bytes: number };
  storage: StorageUsage;
  measured_at: string;
}

/** One size memory or disk could be bought at. */
export interface ResourceStep {
  units: number;
  mb: number;
  /** Sold to this app now. */
  available: boolean;
  /** Units not yet paid for at this step (the size is a total, not an addition). */
  add_units: number;
  price_label: string;
  add_price_label: string;
}

/** One resource (memory or disk) of an app. */
export interface ResourceView {
  /** What the app runs with now. */
  limit_mb: number;
  /** Units already paid for. */
  units: number;
  on_sale: boolean;
  unit_price_label: string;
  steps: ResourceStep[];
}

/** `GET …/deployment/resources`. */
export interface ResourcesView {
  memory: ResourceView;
  disk: ResourceView;
}

/** A setting the app asks for, found in the repository. */
export interface SetupVar {
  name: string;
  required: boolean;
  description: string;
  /** `auto`: comes with a ready `value`; `generate`: any long random string; `secret`: the owner supplies it. */
  input: "auto" | "generate" | "secret";
  value: string;
}

/** `GET /app/sites/{site_id}/repo-check`: the repository read without building it. */
export interface RepoCheckResult {
  /** A Dockerfile exists at the path asked for. */
  dockerfile: boolean;
  /** The repository builds from a Dockerfile elsewhere. */
  dockerfile_found?: { path: string };
  analysis: { expose: number[]; command: string | null; kind: "web" | "cli"; warnings: string[] } | null;
  /** How `build_mode: "auto"` would build it. */
  auto:
    | { found: true; name: string; install: string | null; build: string | null; output?: string; start?: string; dockerfile: string; warnings: string[] }
    | { found: false; reason: string };
  setup: { vars: SetupVar[]; notes: { kind: string; message: string; needed_mb?: number }[] };
}

/** Options of `deployment.deployAndFollow()`. */
export interface DeployFollowOptions {
  /** Every event of the deploy's job stream (`delta`s carry the build log). */
  onEvent?: (event: JobStreamEvent) => void;
  signal?: AbortSignal;
}
