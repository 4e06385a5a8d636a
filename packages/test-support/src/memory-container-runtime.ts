import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Readable } from "node:stream";
import {
  BuildFailure,
  type BuildRequest,
  type BuiltImage,
  type ContainerHandle,
  type ContainerRuntime,
  type ContainerSpec,
  type ContainerState,
  type ContainerStats,
  type ContainerSummary,
} from "@reposite/core";
import { readTar } from "./tar.js";

/** What a request handler knows of the container it answers for. */
export interface MemoryContainerInfo {
  id: string;
  name: string;
  image: string;
  /** The env the app sees: the image's `ENV`, then the spec's env, then `PORT`. */
  env: Record<string, string>;
  labels: Record<string, string>;
  /** Files of the container's named volume, by path inside the container; null without a volume. */
  volume: Map<string, Buffer> | null;
  /** Where the container's volume is mounted; null without a volume. */
  volumePath: string | null;
  /** Files written outside the volume (the container's writable layer), by path. */
  layer: Map<string, Buffer>;
  /** Adds a line to the container's output, as the app printing it. */
  log(line: string): void;
}

export interface MemoryContainerRuntimeOptions {
  /** How the runtime names itself; `memory` by default. */
  name?: string;
  /**
   * Images that exist without being built (`FROM` and `ContainerSpec.image` may name them).
   * When absent, any reference that is no built image is taken as a base image that exists.
   */
  baseImages?: string[];
  /** Milliseconds every build step takes, to make builds observable in progress; 0 by default. */
  stepMs?: number;
  /** Answers the HTTP requests of every running container instead of the test app below. */
  handler?(request: IncomingMessage, response: ServerResponse, container: MemoryContainerInfo): void;
}

/** The in-memory runtime, with a few controls a real engine would not give. */
export interface MemoryContainerRuntime extends ContainerRuntime {
  /** Makes a running container stop on its own now, as an app that exits or is OOM-killed. */
  exit(id: string, exitCode: number, options?: { oomKilled?: boolean }): Promise<void>;
  /** Names of the networks made so far (by `runContainer`) and not removed. */
  networks(): string[];
  /** Stops every container's HTTP server; call it in `afterAll`. */
  close(): Promise<void>;
}

interface MemoryImage {
  id: string;
  tags: string[];
  labels: Record<string, string>;
  env: Record<string, string>;
  markers: RunMarkers;
  size: number;
}

interface RunMarkers {
  oom: boolean;
  exit: { code: number; afterMs: number } | null;
  noHttp: boolean;
  hang: boolean;
  logs: string[];
}

interface MemoryContainer {
  id: string;
  spec: ContainerSpec;
  image: MemoryImage;
  env: Record<string, string>;
  running: boolean;
  exitCode: number | null;
  oomKilled: boolean;
  startedAt: string | null;
  finishedAt: string | null;
  hostPort: number | null;
  output: string[];
  server: Server | null;
  sockets: Set<Socket>;
  timers: NodeJS.Timeout[];
  rxBytes: number;
  txBytes: number;
  /** Files written outside the volume: what `containerSize` measures. */
  layer: Map<string, Buffer>;
}

interface MemoryVolume {
  labels: Record<string, string>;
  files: Map<string, Buffer>;
}

const MARKER = /^#\s*reposite-test:\s*(.+)$/;
const BASE_IMAGE_SIZE = 2_000_000;

/**
 * An in-memory ContainerRuntime for core's fast tests. It keeps images, containers, volumes and
 * networks the way an engine does (labels, states, list by labels, logs, removal, sizes; names are
 * unique, an image or volume in use is not removed), passes `containerRuntimeContract`, and serves
 * real HTTP: every running container is a node:http server on 127.0.0.1 at its `hostPort`, so a
 * health check or a proxy talks to it for real.
 *
 * The test app every container runs (unless `options.handler` replaces it):
 * - `PUT /files/<name>` keeps the body as `$DATA_DIR/<name>` (the volume's path when DATA_DIR is
 *   unset): in the container's volume when that is inside it, else in its writable layer, which
 *   `containerSize` measures (`204`); `GET /files/<name>` answers it (`404` when missing);
 * - any other request answers `200` with `<container name> <env as JSON>`.
 *
 * Builds read the Dockerfile in the tar context: `Step i/n : …` is logged for each instruction,
 * `FROM` must name a base image or a built one, `ENV` and `ARG` (with `buildArgs`) are kept and
 * substituted (`$NAME`, `${NAME}`), `RUN echo …` prints its words, `RUN sleep <s>` takes that long
 * (the build's timeout and signal stop it), and `RUN exit <n>` fails the build with exit code n,
 * as on Docker. Markers script the rest, one per comment line `# reposite-test: <marker>`:
 * - `oom`: the build fails `out_of_memory` with exit code 137;
 * - `run oom`: a container of the image is OOM-killed (exit 137) just after it starts;
 * - `run exit <code> [after <ms>]`: a container of the image exits with that code (at once, or
 *   after <ms> milliseconds);
 * - `run no-http`: nothing listens on the container's port (connections are refused);
 * - `run hang`: connections are accepted but never answered;
 * - `run log <text>`: the container prints that line when it starts (one marker per line).
 */
export function createMemoryContainerRuntime(options: MemoryContainerRuntimeOptions = {}): MemoryContainerRuntime {
  const images = new Map<string, MemoryImage>();
  const containers = new Map<string, MemoryContainer>();
  const volumes = new Map<string, MemoryVolume>();
  const networks = new Map<string, Record<string, string>>();
  const stepMs = options.stepMs ?? 0;

  const findImage = (reference: string): MemoryImage | null => {
    for (const image of images.values()) if (image.id === reference || image.tags.includes(normalTag(reference))) return image;
    if (options.baseImages && !options.baseImages.includes(reference)) return null;
    return baseImage(reference);
  };
  const findContainer = (idOrName: string) => {
    for (const container of containers.values()) if (container.id === idOrName || container.spec.name === idOrName) return container;
    return null;
  };
  const state = (container: MemoryContainer): ContainerState => ({
    id: container.id,
    running: container.running,
    exitCode: container.running ? null : container.exitCode,
    oomKilled: container.oomKilled,
    startedAt: container.startedAt,
    finishedAt: container.finishedAt,
    hostPort: container.running ? container.hostPort : null,
  });

  const finish = async (container: MemoryContainer, exitCode: number, oomKilled: boolean) => {
    if (!container.running) return;
    container.running = false;
    container.exitCode = exitCode;
    container.oomKilled = oomKilled;
    container.finishedAt = new Date().toISOString();
    for (const timer of container.timers) clearTimeout(timer);
    container.timers = [];
    const server = container.server;
    container.server = null;
    container.hostPort = null;
    if (server) {
      for (const socket of container.sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  };

  const start = async (container: MemoryContainer) => {
    const markers = container.image.markers;
    container.running = true;
    container.exitCode = null;
    container.oomKilled = false;
    container.startedAt = new Date().toISOString();
    container.finishedAt = null;
    container.output.push(...markers.logs);
    container.server = await listen(container, markers);
    container.hostPort = (container.server.address() as AddressInfo).port;
    if (markers.oom) container.timers.push(setTimeout(() => void finish(container, 137, true), 20));
    else if (markers.exit) {
      const { code, afterMs } = markers.exit;
      if (afterMs === 0) await finish(container, code, false);
      else container.timers.push(setTimeout(() => void finish(container, code, false), afterMs));
    }
  };

  const listen = (container: MemoryContainer, markers: RunMarkers): Promise<Server> => {
    const info = (): MemoryContainerInfo => ({
      id: container.id,
      name: container.spec.name,
      image: container.spec.image,
      env: container.env,
      labels: container.spec.labels,
      volume: container.spec.volume ? (volumes.get(container.spec.volume.name)?.files ?? null) : null,
      volumePath: container.spec.volume?.path ?? null,
      layer: container.layer,
      log: (line) => container.output.push(line),
    });
    const server = createServer((request, response) => {
      if (markers.hang) return;
      if (options.handler) options.handler(request, response, info());
      else void testApp(request, response, info());
    });
    server.on("connection", (socket) => {
      container.sockets.add(socket);
      socket.on("close", () => {
        container.rxBytes += socket.bytesRead;
        container.txBytes += socket.bytesWritten;
        container.sockets.delete(socket);
      });
      // Nothing listens inside the container: the published port refuses, as Docker's proxy does.
      if (markers.noHttp) socket.destroy();
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
  };

  return {
    name: options.name ?? "memory",
    capabilities: { stats: true, exec: false, execTty: false },

    async ping() {},

    async buildImage(request: BuildRequest): Promise<BuiltImage> {
      const context = await readAll(request.context);
      const entries = readTar(context);
      const wanted = normalPath(request.dockerfile);
      const entry = entries.find((candidate) => candidate.type === "file" && normalPath(candidate.path) === wanted);
      if (!entry) throw new BuildFailure(`Cannot locate specified Dockerfile: ${request.dockerfile}`, "failed");
      const dockerfile = parseDockerfile(Buffer.from(entry.content).toString("utf8"));

      const deadline = Date.now() + request.timeoutMs;
      const stopped = () => {
        if (request.signal?.aborted) return new BuildFailure("The build was cancelled.", "cancelled");
        if (Date.now() >= deadline) return new BuildFailure(`The build took longer than ${request.timeoutMs} ms.`, "timeout");
        return null;
      };
      const wait = (ms: number) => waitUnless(ms, deadline, request.signal);

      const env: Record<string, string> = {};
      const args: Record<string, string> = {};
      const markers: RunMarkers = { oom: false, exit: null, noHttp: false, hang: false, logs: [] };
      let buildOom = false;
      for (const marker of dockerfile.markers) {
        const words = marker.split(/\s+/);
        if (words[0] === "oom") buildOom = true;
        else if (words[0] === "run") applyRunMarker(markers, words.slice(1), marker);
      }
      const expand = (text: string) =>
        text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced: string | undefined, bare: string | undefined) => {
          const name = (braced ?? bare)!;
          return env[name] ?? args[name] ?? "";
        });

      let from: MemoryImage | null = null;
      const steps = dockerfile.instructions;
      for (const [index, { keyword, rest }] of steps.entries()) {
        const failure = stopped();
        if (failure) throw failure;
        request.onLog(`Step ${index + 1}/${steps.length} : ${keyword} ${rest}`);
        if (stepMs > 0) await wait(stepMs);
        if (keyword === "FROM") {
          const reference = rest.split(/\s+/)[0] ?? "";
          from = findImage(expand(reference));
          if (!from) throw new BuildFailure(`pull access denied for ${reference}, repository does not exist or may require 'docker login'`, "failed");
          Object.assign(env, from.env);
        } else if (keyword === "ENV") {
          for (const [name, value] of parseAssignments(rest)) env[name] = expand(value);
        } else if (keyword === "ARG") {
          for (const [name, value] of parseAssignments(rest)) args[name] = request.buildArgs?.[name] ?? expand(value);
        } else if (keyword === "RUN") {
          const command = expand(rest).trim();
          if (buildOom && index === steps.findLastIndex((step) => step.keyword === "RUN")) {
            throw new BuildFailure(`The command '/bin/sh -c ${rest}' returned a non-zero code: 137`, "out_of_memory", 137);
          }
          const echo = /^echo\s+(.*)$/s.exec(command);
          const sleep = /^sleep\s+(\d+(?:\.\d+)?)$/.exec(command);
          const exit = /^exit\s+(\d+)$/.exec(command);
          if (echo) request.onLog(echo[1]!.replace(/^(["'])(.*)\1$/s, "$2"));
          else if (sleep) await wait(Number(sleep[1]) * 1000);
          else if (exit && Number(exit[1]) !== 0) {
            throw new BuildFailure(`The command '/bin/sh -c ${rest}' returned a non-zero code: ${exit[1]}`, "failed", Number(exit[1]));
          }
        }
        if (stepMs === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const failure = stopped();
      if (failure) throw failure;
      if (!from) throw new BuildFailure("No build stage in the Dockerfile (FROM is missing).", "failed");
      if (buildOom) throw new BuildFailure("The build ran out of memory (exit code 137).", "out_of_memory", 137);

      const unused = Object.keys(request.buildArgs ?? {}).filter((name) => !(name in args));
      if (unused.length > 0) request.onLog(`[Warning] One or more build-args [${unused.join(" ")}] were not consumed`);
      const id = `sha256:${createHash("sha256").update(context).update(randomBytes(8)).digest("hex")}`;
      const tag = normalTag(request.tag);
      for (const image of images.values()) image.tags = image.tags.filter((existing) => existing !== tag);
      images.set(id, { id, tags: [tag], labels: { ...request.labels }, env, markers, size: from.size + context.byteLength });
      request.onLog(`Successfully built ${id.slice(7, 19)}`);
      request.onLog(`Successfully tagged ${tag}`);
      return { id };
    },

    async runContainer(spec: ContainerSpec): Promise<ContainerHandle> {
      const image = findImage(spec.image);
      if (!image) throw new Error(`[memory-runtime] No such image: ${spec.image}`);
      if (findContainer(spec.name)) throw new Error(`[memory-runtime] Conflict. The container name "/${spec.name}" is already in use.`);
      if (!networks.has(spec.network)) networks.set(spec.network, { ...spec.labels });
      if (spec.volume && !volumes.has(spec.volume.name)) volumes.set(spec.volume.name, { labels: { ...spec.labels }, files: new Map() });
      const container: MemoryContainer = {
        id: randomBytes(32).toString("hex"),
        spec: structuredClone(spec),
        image,
        env: { ...image.env, ...spec.env, PORT: String(spec.port) },
        running: false,
        exitCode: null,
        oomKilled: false,
        startedAt: null,
        finishedAt: null,
        hostPort: null,
        output: [],
        server: null,
        sockets: new Set(),
        timers: [],
        rxBytes: 0,
        txBytes: 0,
        layer: new Map(),
      };
      containers.set(container.id, container);
      await start(container);
      return { id: container.id, host: "127.0.0.1", hostPort: container.hostPort ?? 0 };
    },

    async inspectContainer(id) {
      const container = findContainer(id);
      return container ? state(container) : null;
    },

    async stopContainer(id) {
      const container = findContainer(id);
      // The test app leaves on SIGTERM at once; an app that ignored it would be killed (137).
      if (container) await finish(container, 143, false);
    },

    async startContainer(id) {
      const container = findContainer(id);
      if (!container) throw new Error(`[memory-runtime] No such container: ${id}`);
      if (!container.running) await start(container);
      return state(container);
    },

    async removeContainer(id) {
      const container = findContainer(id);
      if (!container) return;
      await finish(container, 137, false);
      containers.delete(container.id);
    },

    async listContainers(labels) {
      const found: ContainerSummary[] = [];
      for (const container of containers.values()) {
        if (!matches(container.spec.labels, labels)) continue;
        found.push({
          id: container.id,
          name: container.spec.name,
          labels: { ...container.spec.labels },
          running: container.running,
          hostPort: container.running ? container.hostPort : null,
        });
      }
      return found;
    },

    async logs(id, tail) {
      const container = findContainer(id);
      if (!container || tail <= 0) return [];
      return container.output.slice(-tail);
    },

    async removeImage(reference) {
      const image = [...images.values()].find((candidate) => candidate.id === reference || candidate.tags.includes(normalTag(reference)));
      if (!image) return;
      const user = [...containers.values()].find((container) => container.image === image);
      if (user) throw new Error(`[memory-runtime] conflict: unable to delete ${reference} - image is being used by container ${user.id.slice(0, 12)}`);
      images.delete(image.id);
    },

    async removeVolume(name) {
      if (!volumes.has(name)) return;
      const user = [...containers.values()].find((container) => container.spec.volume?.name === name);
      if (user) throw new Error(`[memory-runtime] remove ${name}: volume is in use - [${user.id}]`);
      volumes.delete(name);
    },

    async removeNetwork(name) {
      if (!networks.has(name)) return;
      const user = [...containers.values()].find((container) => container.running && container.spec.network === name);
      if (user) throw new Error(`[memory-runtime] error while removing network: network ${name} has active endpoints`);
      networks.delete(name);
    },

    async imageSize(reference) {
      const image = [...images.values()].find((candidate) => candidate.id === reference || candidate.tags.includes(normalTag(reference)));
      return image?.size ?? null;
    },

    async volumeSize(name) {
      const volume = volumes.get(name);
      if (!volume) return null;
      let bytes = 0;
      for (const content of volume.files.values()) bytes += content.byteLength;
      return bytes;
    },

    async containerSize(id) {
      const container = findContainer(id);
      if (!container) return null;
      let bytes = 0;
      for (const content of container.layer.values()) bytes += content.byteLength;
      return bytes;
    },

    async stats(id): Promise<ContainerStats> {
      const container = findContainer(id);
      if (!container) throw new Error(`[memory-runtime] No such container: ${id}`);
      let rx = container.rxBytes;
      let tx = container.txBytes;
      for (const socket of container.sockets) {
        rx += socket.bytesRead;
        tx += socket.bytesWritten;
      }
      return {
        cpuPercent: 0,
        memoryBytes: container.running ? 8 * 1024 * 1024 : 0,
        memoryLimitBytes: container.spec.memoryMb * 1024 * 1024,
        networkRxBytes: rx,
        networkTxBytes: tx,
      };
    },

    async exit(id, exitCode, exitOptions = {}) {
      const container = findContainer(id);
      if (!container) throw new Error(`[memory-runtime] No such container: ${id}`);
      await finish(container, exitCode, exitOptions.oomKilled ?? false);
    },

    networks: () => [...networks.keys()],

    async close() {
      await Promise.all([...containers.values()].map((container) => finish(container, 137, false)));
    },
  };
}

/** The app every container runs unless the options give a handler (see the runtime's doc comment). */
async function testApp(request: IncomingMessage, response: ServerResponse, container: MemoryContainerInfo) {
  const body = await readAll(request);
  const file = /^\/files\/([^/?]+)/.exec(request.url ?? "/")?.[1];
  if (file !== undefined) {
    // Files go to `$DATA_DIR` (the volume's path by default): inside the volume, or else the writable layer.
    const dir = (container.env.DATA_DIR ?? container.volumePath ?? "/data").replace(/\/+$/, "");
    const path = `${dir}/${decodeURIComponent(file)}`;
    const inVolume = container.volume !== null && container.volumePath !== null && `${path}/`.startsWith(`${container.volumePath.replace(/\/+$/, "")}/`);
    const files = inVolume ? container.volume! : container.layer;
    if (request.method === "PUT") {
      files.set(path, body);
      return send(response, 204, "");
    }
    const content = files.get(path);
    return content ? send(response, 200, content) : send(response, 404, "not found");
  }
  send(response, 200, `${container.name} ${JSON.stringify(container.env)}`);
}

function send(response: ServerResponse, status: number, body: string | Buffer) {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

function applyRunMarker(markers: RunMarkers, words: string[], marker: string) {
  const [what, ...rest] = words;
  if (what === "oom") markers.oom = true;
  else if (what === "no-http") markers.noHttp = true;
  else if (what === "hang") markers.hang = true;
  else if (what === "log") markers.logs.push(marker.replace(/^run\s+log\s?/, ""));
  else if (what === "exit") markers.exit = { code: Number(rest[0] ?? 1), afterMs: rest[1] === "after" ? Number(rest[2] ?? 0) : 0 };
  else throw new BuildFailure(`[memory-runtime] unknown marker: # reposite-test: ${marker}`, "failed");
}

interface Dockerfile {
  instructions: { keyword: string; rest: string }[];
  markers: string[];
}

function parseDockerfile(text: string): Dockerfile {
  const instructions: Dockerfile["instructions"] = [];
  const markers: string[] = [];
  let pending = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const marker = MARKER.exec(line);
    if (marker) {
      markers.push(marker[1]!.trim());
      continue;
    }
    if (!pending && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = `${pending}${line}`.trim();
    pending = "";
    if (!whole) continue;
    const [, keyword = "", rest = ""] = /^(\S+)\s*(.*)$/s.exec(whole) ?? [];
    instructions.push({ keyword: keyword.toUpperCase(), rest });
  }
  return { instructions, markers };
}

/** `K=V K2="V 2"` or the older `K V`, as `ENV` and `ARG` take them. */
function parseAssignments(text: string): [string, string][] {
  if (!/^\w+=/.test(text)) {
    const [, name = "", value = ""] = /^(\w+)\s*(.*)$/s.exec(text) ?? [];
    return [[name, value]];
  }
  const pairs: [string, string][] = [];
  for (const match of text.matchAll(/(\w+)=("([^"]*)"|'([^']*)'|\S*)/g)) pairs.push([match[1]!, match[3] ?? match[4] ?? match[2]!]);
  return pairs;
}

function baseImage(reference: string): MemoryImage {
  const tag = normalTag(reference);
  return {
    id: `sha256:${createHash("sha256").update(tag).digest("hex")}`,
    tags: [tag],
    labels: {},
    env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
    markers: { oom: false, exit: null, noHttp: false, hang: false, logs: [] },
    size: BASE_IMAGE_SIZE,
  };
}

function normalTag(reference: string): string {
  return /:[^/]+$/.test(reference) || reference.startsWith("sha256:") ? reference : `${reference}:latest`;
}

function normalPath(path: string): string {
  return path.replace(/^\.\//, "").replace(/^\/+/, "");
}

function matches(have: Record<string, string>, want: Record<string, string>): boolean {
  return Object.entries(want).every(([key, value]) => have[key] === value);
}

/** Waits `ms`, but rejects as soon as the deadline passes or the signal aborts. */
function waitUnless(ms: number, deadline: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const untilDeadline = deadline - Date.now();
    const done = (error: BuildFailure | null) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => done(new BuildFailure("The build was cancelled.", "cancelled"));
    const timer = setTimeout(
      () => done(ms >= untilDeadline ? new BuildFailure(`The build took longer than its time limit.`, "timeout") : null),
      Math.max(0, Math.min(ms, untilDeadline)),
    );
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function readAll(source: BuildRequest["context"] | IncomingMessage): Promise<Buffer> {
  const stream = source instanceof ReadableStream ? Readable.fromWeb(source as import("node:stream/web").ReadableStream) : source;
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
