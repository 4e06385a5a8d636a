import type { InjectionToken } from "tsyringe";

/**
 * Where hosted apps are built and run, as hosting reads it: core's internal one-engine shape.
 * Providers implement the two ports instead (`ImageBuilder`, `AppRuntime`); core makes this from
 * them (`containerRuntimeFromPorts`, hosting/runtime-from-ports.ts), whichever rolls out.
 * Small and capability-shaped: what every runtime must do is required; what only some can do (a
 * terminal, live stats) is described by `capabilities` and optional methods. Also implemented by
 * provider-docker's `DockerRuntime` (what its two adapters wrap) and, for core's fast tests, an
 * in-memory runtime in test-support; both pass `containerRuntimeContract`.
 *
 * Every container, image and volume the runtime makes carries the labels it was given, so a
 * restarted server finds its apps again with `listContainers(labels)` instead of remembering them.
 */
export interface ContainerRuntime {
  /** Names the runtime in start-up output and errors, for example `docker 28.2.2`. */
  readonly name: string;
  readonly capabilities: ContainerRuntimeCapabilities;

  /** Answers when the runtime can be used now; rejects with the reason otherwise. */
  ping(): Promise<void>;

  /**
   * Builds an image from a tar context (a Dockerfile at `dockerfile` inside it). Log lines reach
   * `onLog` as they come; the build is held to `memoryMb` and `timeoutMs`, and `signal` cancels it.
   * Resolves with the image id; rejects with a `BuildFailure` carrying the reason, the exit code
   * and the failing step.
   */
  buildImage(request: BuildRequest): Promise<BuiltImage>;

  /**
   * Removes what builds whose labels included all of `labels` keep for later builds (a builder's
   * cache), when the app is removed. Absent when the runtime keeps nothing.
   */
  removeBuildCache?(labels: Record<string, string>): Promise<void>;

  /** Creates and starts a container; resolves once it is started (not yet healthy). */
  runContainer(spec: ContainerSpec): Promise<ContainerHandle>;

  /** State of a container, or null when it does not exist (any more). */
  inspectContainer(id: string): Promise<ContainerState | null>;

  /** Stops a container (SIGTERM, then SIGKILL after `graceSeconds`); a stopped or missing one is fine. */
  stopContainer(id: string, graceSeconds?: number): Promise<void>;

  /** Starts a stopped container again with the same settings. */
  startContainer(id: string): Promise<ContainerState>;

  /** Removes a container (stopping it first); a missing one is fine. */
  removeContainer(id: string): Promise<void>;

  /** Containers whose labels include every one given, running or not. */
  listContainers(labels: Record<string, string>): Promise<ContainerSummary[]>;

  /** The last `tail` lines of a container's output (stdout and stderr, in order); none for a missing container. */
  logs(id: string, tail: number): Promise<string[]>;

  /** Removes an image; a missing one is fine. */
  removeImage(id: string): Promise<void>;

  /** Removes a named volume and its data; a missing one is fine. */
  removeVolume(name: string): Promise<void>;

  /**
   * Removes a network `runContainer` made (when the app is deleted); a missing one is fine. Rejects
   * while a running container is still on it.
   */
  removeNetwork(name: string): Promise<void>;

  /**
   * Holds a volume to a new disk limit now (a purchase, or a lowered limit), when the runtime
   * enforces limits at write time; a volume already over the new limit can take no more writes.
   */
  resizeVolume?(name: string, limitMb: number): Promise<void>;

  /** How app disk limits hold on this runtime, for the start-up output. */
  diskLimits?(): Promise<DiskLimits>;

  /** Bytes an image and a volume use on disk, or null when unknown. */
  imageSize(id: string): Promise<number | null>;
  volumeSize(name: string): Promise<number | null>;

  /** Bytes the container's writable layer holds (what the app wrote outside its volume), or null when unknown. */
  containerSize(id: string): Promise<number | null>;

  /** Resource use now (with `capabilities.stats`). */
  stats?(id: string): Promise<ContainerStats>;

  /**
   * Runs a command in a running container without a terminal and answers its exit code and its
   * output (stdout and stderr in order, cut to `maxBytes`, 64 KB by default). Used to look inside a
   * failed app (what it listens on). With `capabilities.exec`.
   */
  exec?(id: string, command: string[], options?: { timeoutMs?: number; maxBytes?: number }): Promise<ExecResult>;

  /** Opens an interactive shell (`command`) in a running container with a terminal. With `capabilities.execTty`. */
  openTerminal?(id: string, options: TerminalOptions): Promise<TerminalSession>;
}

/** Whether writes past an app's disk limit fail at once, or are found by the periodic measurement. */
export interface DiskLimits {
  atWriteTime: boolean;
  /** One line for operators: the mechanism, or why there is none. */
  note: string;
}

export interface ExecResult {
  exitCode: number;
  output: string;
}

export interface TerminalOptions {
  command: string[];
  cols: number;
  rows: number;
  env?: Record<string, string>;
}

/** A terminal on a process in a container: bytes in and out, a size, an end. */
export interface TerminalSession {
  write(data: string | Uint8Array): void;
  resize(cols: number, rows: number): Promise<void>;
  /** Output as it comes. */
  onData(listener: (data: Uint8Array) => void): void;
  /** Called once, when the process ends or the session is closed. */
  onExit(listener: () => void): void;
  close(): void;
}

export interface ContainerRuntimeCapabilities {
  /** `stats()` answers CPU, memory and network use. */
  stats: boolean;
  /** `exec()`: commands can run inside a container and answer their output. */
  exec: boolean;
  /** `openTerminal()`: a shell can run inside a container with a terminal. */
  execTty: boolean;
}

export interface BuildRequest {
  /** A tar stream of the build context. */
  context: ReadableStream<Uint8Array> | NodeJS.ReadableStream;
  /** Path of the Dockerfile inside the context. */
  dockerfile: string;
  /** Tag for the image, for example `reposite-app/<slug>:<run>`. */
  tag: string;
  labels: Record<string, string>;
  /** Build arguments (`ARG`): with `auto` builds the app's env reaches the build this way. */
  buildArgs?: Record<string, string>;
  /** Memory for each step of the build, no extra swap: a step that outgrows it fails (exit 137, `out_of_memory`). */
  memoryMb: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** One line of build output at a time, without its line ending. */
  onLog(line: string): void;
}

export interface BuiltImage {
  id: string;
}

/** The step a build failed at (or was in when it was stopped), as the builder ran it. */
export interface FailedBuildStep {
  /** As the builder names it: `[build 3/5] RUN npm ci` (BuildKit). */
  name: string;
  /** The stage (`build`, `stage-1`), or null in a one-stage Dockerfile. */
  stage: string | null;
  /** Its number in the stage, and how many the stage has (its `FROM` is 1). */
  number: number;
  of: number;
  /** The instruction as the builder shows it (`RUN npm ci`, build arguments expanded). */
  instruction: string;
  /** The instruction's first line in the Dockerfile (1-based), when found. */
  dockerfileLine: number | null;
  /** The step's last output lines (up to 200), oldest first, whatever the length of the whole log. */
  output: string[];
}

/** Why a build failed, with the exit code and the failing step when there are. */
export class BuildFailure extends Error {
  constructor(
    message: string,
    readonly reason: "failed" | "out_of_memory" | "timeout" | "cancelled",
    readonly exitCode?: number,
    readonly step?: FailedBuildStep,
  ) {
    super(message);
    this.name = "BuildFailure";
  }
}

export interface ContainerSpec {
  /** Container name (unique on the runtime), for example `reposite-<slug>-<run>`. */
  name: string;
  image: string;
  labels: Record<string, string>;
  env: Record<string, string>;
  /** Overrides the image's command (the bare box's keep-alive command). */
  command?: string[];
  /** The port the app listens on inside; published on 127.0.0.1 only, on a free host port. */
  port: number;
  memoryMb: number;
  /** CPUs, for example 1 or 0.5. */
  cpus: number;
  pidsLimit: number;
  /**
   * A named volume mounted at `path`, kept across deploys. With `limitMb`, a runtime that can
   * holds it to that size at write time.
   */
  volume?: { name: string; path: string; limitMb?: number };
  /**
   * Keep the root filesystem writable (a bare box someone works in through a terminal). Otherwise
   * a runtime that enforces disk limits at write time makes it read-only, with a small `/tmp`.
   */
  writableRoot?: boolean;
  /** The network the container joins alone; made when missing, so apps cannot reach each other. */
  network: string;
}

export interface ContainerHandle {
  id: string;
  /** Where the app answers from the host: 127.0.0.1 and the published port. */
  host: string;
  hostPort: number;
}

export interface ContainerState {
  id: string;
  running: boolean;
  /** Exit code once it stopped. */
  exitCode: number | null;
  /** Killed for using more memory than its limit. */
  oomKilled: boolean;
  startedAt: string | null;
  finishedAt: string | null;
  /** Host port of the app's published port while it runs. */
  hostPort: number | null;
}

export interface ContainerSummary {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
  hostPort: number | null;
}

export interface ContainerStats {
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  networkRxBytes: number;
  networkTxBytes: number;
}

/** Absent when no runtime answered at start: hosting is then off and says so. Registered by `createReposite`, from the two ports or as given. */
export const CONTAINER_RUNTIME: InjectionToken<ContainerRuntime> = Symbol.for("reposite.ContainerRuntime");
