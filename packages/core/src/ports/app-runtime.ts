import type { InjectionToken } from "tsyringe";
import type { ContainerStats, DiskLimits, ExecResult, TerminalOptions, TerminalSession } from "./container-runtime.js";

/**
 * Where hosted apps run, one app at a time: a container on one engine, a service on a Swarm, a
 * Deployment on Kubernetes. Small and capability-shaped: running, replacing, stopping, inspecting
 * and reading logs are required; exec, a terminal, stats and disk figures are optional methods
 * described by `capabilities`. Versioned like the AI SDK's provider spec (`specificationVersion`).
 *
 * Nothing here assumes the app answers on 127.0.0.1: `address()` says where the edge and the
 * health check reach it (a published loopback port on one engine, a service name on an overlay
 * network in a cluster). Who rolls out a new version is a capability:
 * - `caller`: core starts the new app, health-checks it, switches the route, drains and removes
 *   the old one (one engine today);
 * - `orchestrator`: `replace()` asks the runtime for a start-first update that is health-gated and
 *   rolls back on failure; core follows its progress and reads the outcome.
 *
 * Everything an app is made of carries the labels it was given, so a restarted control plane
 * finds its apps with `list(labels)`. Implementations: `@reposite/provider-docker` (`caller`, one engine) and
 * `@reposite/provider-swarm` (`orchestrator`); proved by
 * `appRuntimeContract` in test-support.
 */
export interface AppRuntime {
  readonly specificationVersion: "v1";
  /** Names the runtime in start-up output and errors, for example `swarm (3 nodes)`. */
  readonly provider: string;
  readonly capabilities: AppRuntimeCapabilities;

  /** Answers when apps can be run now; rejects with the reason otherwise. */
  ping(): Promise<void>;

  /**
   * Runs an app from an image (an `AppImage.reference`), its network made when missing. Resolves
   * once the runtime has accepted it (not yet healthy: follow `inspect()` or the health check).
   */
  run(spec: AppSpec): Promise<AppHandle>;

  /**
   * Replaces the app's image (and env, when given) with a start-first update: the new version
   * starts beside the old one, must pass the health check of `spec.healthPath`, and only then
   * takes over; when it does not, the runtime rolls back and the old version keeps serving.
   * Resolves with the outcome once the update has settled. With `capabilities.rollout ===
   * "orchestrator"`; a `caller` runtime has none (core runs the new app and switches itself).
   */
  replace?(id: string, change: AppChange, options?: RolloutOptions): Promise<RolloutResult>;

  /**
   * Stops the app (it keeps its settings, volume and network); a stopped or missing one is fine.
   * `graceSeconds` is how long it has between SIGTERM and SIGKILL, where the runtime lets the caller say.
   */
  stop(id: string, options?: StopOptions): Promise<void>;

  /** Starts a stopped app again with the same settings; resolves once it runs. */
  start(id: string): Promise<AppState>;

  /** Removes the app and the network `run()` made for it; a missing one is fine. The volume stays (`removeVolume`). */
  remove(id: string): Promise<void>;

  /** Removes a named volume and its data; a missing one is fine. */
  removeVolume(name: string): Promise<void>;

  /** The app's state, or null when it does not exist (any more). */
  inspect(id: string): Promise<AppState | null>;

  /** Apps whose labels include every one given, running or not: recovery after a restart. */
  list(labels: Record<string, string>): Promise<AppSummary[]>;

  /** The last `tail` lines of the app's output (stdout and stderr, in order); none for a missing app. */
  logs(id: string, tail: number): Promise<string[]>;

  /** Where the edge and the health check reach the app, or null when it is stopped or missing. */
  address(id: string): Promise<AppAddress | null>;

  /** Runs a command in the app without a terminal (`capabilities.exec`). */
  exec?(id: string, command: string[], options?: { timeoutMs?: number; maxBytes?: number }): Promise<ExecResult>;

  /** Opens an interactive shell in the app with a terminal (`capabilities.terminal`). */
  openTerminal?(id: string, options: TerminalOptions): Promise<TerminalSession>;

  /** Resource use now (`capabilities.stats`). */
  stats?(id: string): Promise<ContainerStats>;

  /** Bytes the app's writable layer and its volume hold, or null when unknown (`capabilities.disk`). */
  diskUsage?(id: string, volume?: string): Promise<AppDiskUsage>;

  /** Bytes a named volume holds, whether or not an app runs on it, or null when unknown (`capabilities.disk`). */
  volumeSize?(name: string): Promise<number | null>;

  /**
   * Holds a volume to a new disk limit now (a purchase, or a lowered limit) where the runtime
   * enforces limits at write time (`capabilities.diskLimits`).
   */
  resizeVolume?(name: string, limitMb: number): Promise<void>;

  /** How app disk limits hold on this runtime, for the start-up output (`capabilities.diskLimits`). */
  diskLimits?(): Promise<DiskLimits>;
}

export interface StopOptions {
  /** Seconds between SIGTERM and SIGKILL; the runtime's default when absent. */
  graceSeconds?: number;
}

export interface AppRuntimeCapabilities {
  /** Who rolls out a new version: core (`caller`) or the runtime's `replace()` (`orchestrator`). */
  rollout: "caller" | "orchestrator";
  exec: boolean;
  terminal: boolean;
  stats: boolean;
  disk: boolean;
  /**
   * `resizeVolume()` and `diskLimits()` exist: volumes can be held to a size. Optional so a v1
   * runtime written before it stays valid (absent is false).
   */
  diskLimits?: boolean;
}

export interface AppSpec {
  /** Unique on the runtime, for example `reposite-<slug>`. */
  name: string;
  /** An `AppImage.reference`. */
  image: string;
  labels: Record<string, string>;
  env: Record<string, string>;
  /** Overrides the image's command. */
  command?: string[];
  /** The port the app listens on inside (given to it as `PORT`). */
  port: number;
  /** A hard limit: outgrowing it is an OOM kill. */
  memoryMb: number;
  /** What the scheduler keeps free for the app on its node; none when absent. */
  memoryReservationMb?: number;
  /** CPUs, for example 1 or 0.5 (a limit). */
  cpus: number;
  /** CPUs the scheduler keeps free for the app; none when absent. */
  cpuReservation?: number;
  pidsLimit: number;
  /** The path the health check asks (a 2xx or 3xx answer is healthy); `/` when absent. */
  healthPath?: string;
  /** A named volume mounted at `path`, kept across deploys; a cluster pins the app to its node. */
  volume?: { name: string; path: string; limitMb?: number };
  /** The network the app joins alone, made when missing: apps cannot reach each other. */
  network: string;
  /**
   * Keep the root filesystem writable (a bare box someone works in through a terminal). Otherwise
   * a runtime that enforces disk limits at write time may make it read-only, with a small `/tmp`.
   */
  writableRoot?: boolean;
}

/** What `replace()` changes; the rest of the spec stays. */
export interface AppChange {
  image: string;
  env?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface RolloutOptions {
  /** How long the update may take before it counts as failed; the runtime's default when absent. */
  timeoutMs?: number;
  /** One line per step of the update, for the run's log. */
  onProgress?(line: string): void;
  /**
   * Cancels the rollout (a cancelled deploy). Aborted while the update is under way, the runtime
   * rolls the app back to its previous version and resolves `cancelled` once that version serves
   * again; aborted before it began, nothing changes. An update already completed stands.
   */
  signal?: AbortSignal;
}

export interface RolloutResult {
  /**
   * `updated`: the new version serves; `rolled_back`: it never became healthy and the old one
   * serves; `cancelled`: `signal` aborted the rollout and the old one serves again.
   */
  outcome: "updated" | "rolled_back" | "cancelled";
  /** The runtime's words on the outcome (`update completed`, `rollback completed`, the task's error). */
  message: string;
}

export interface AppHandle {
  id: string;
  /** Where the app will answer once it is up. */
  address: AppAddress;
}

/** Where an app answers: a host name or address and a port, reached from `network` when one is given. */
export interface AppAddress {
  host: string;
  port: number;
  /**
   * The network to be on to reach `host` (an overlay network in a cluster: the edge attaches to
   * it), or null when the host reaches it from the machine that asks.
   */
  network: string | null;
}

export interface AppState {
  id: string;
  /** Whether the app is meant to run (stopped apps are not). */
  wanted: boolean;
  /** Whether a copy of the app runs now. */
  running: boolean;
  /** Exit code of the last copy that ended, or null. */
  exitCode: number | null;
  /** The last copy that ended was killed for using more memory than its limit. */
  oomKilled: boolean;
  /** When the running copy (or else the last one) started and ended. */
  startedAt: string | null;
  finishedAt: string | null;
  /** The image the app is meant to run now. */
  image: string;
  /** The runtime's last words on the app (`task: non-zero exit (137)`), or null. */
  message: string | null;
}

export interface AppSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
}

export interface AppDiskUsage {
  /** What the app wrote outside its volume. */
  writableBytes: number | null;
  volumeBytes: number | null;
}

/** Registered with the `ImageBuilder` whenever hosting is on: core builds and runs apps through the two. */
export const APP_RUNTIME: InjectionToken<AppRuntime> = Symbol.for("reposite.AppRuntime");
