import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { BuildFailure, type BuildRequest, type ContainerHandle, type ContainerRuntime, type ContainerSpec } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTar } from "../tar.js";

export interface ContainerRuntimeContractSetup {
  runtime: ContainerRuntime;
  /** Images the runtime has without a build: `node` runs `node`, `busybox` has `sh`, `head` and `tail`. */
  baseImages: { node: string; busybox: string };
  /**
   * Labels unique to this run. Every container, image and volume the contract makes carries them
   * (and every Dockerfile starts with them as `LABEL`, so intermediate images do too), so
   * `teardown` can remove whatever a failing test left behind.
   */
  labels: Record<string, string>;
  /** Host addresses a container's port is published on, where the runtime tells (Docker's inspect). */
  publishedHostIps?(id: string): Promise<string[]>;
  teardown(): Promise<void>;
}

const MiB = 1024 * 1024;

/**
 * The app the contract runs (as `/app/server.js` on the node image). It speaks the memory
 * runtime's test app protocol: `PUT|GET /files/<name>` in `$DATA_DIR`, anything else `200` with
 * the host name and the env as JSON. It prints three lines at start (stdout, stderr, stdout) and
 * leaves at once on SIGTERM.
 */
const APP_SERVER = `
const http = require("node:http"), fs = require("node:fs"), os = require("node:os");
const dir = process.env.DATA_DIR || "/data";
console.log("app starting");
setTimeout(() => console.error("warming up"), 40);
process.on("SIGTERM", () => process.exit(0));
http.createServer((req, res) => {
  const file = /^\\/files\\/([^/?]+)/.exec(req.url || "/");
  if (!file) return res.end(os.hostname() + " " + JSON.stringify(process.env));
  const path = dir + "/" + decodeURIComponent(file[1]);
  if (req.method === "PUT") {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => { fs.writeFileSync(path, Buffer.concat(chunks)); res.writeHead(204).end(); });
    return;
  }
  fs.readFile(path, (error, data) => (error ? res.writeHead(404).end("not found") : res.end(data)));
}).listen(Number(process.env.PORT), () => setTimeout(() => console.log("ready"), 80));
`;

/**
 * What hosting needs of a container runtime, proved the same way for the in-memory runtime and
 * for Docker: builds from a tar context with streamed logs, failures classified (exit code, out of
 * memory, timeout, cancel); containers with labels, env and `PORT`, published on 127.0.0.1 and
 * answering HTTP; inspect, stop, start, remove, list by labels, logs, sizes, a volume that keeps
 * data, and removal of what is missing.
 *
 * This is the suite of the old `ContainerRuntime` port, kept while core moves to the split ports;
 * new providers implement `ImageBuilder` and `AppRuntime` and run `imageBuilderContract` and
 * `appRuntimeContract` instead.
 */
/** A build log line without the step number BuildKit's lines start with (`#5 npm notice …`). */
const stepOutput = (line: string) => line.replace(/^#\d+ /, "");

export function containerRuntimeContract(name: string, setup: () => Promise<ContainerRuntimeContractSetup>): void {
  describe(`container runtime contract: ${name}`, () => {
    let ctx: ContainerRuntimeContractSetup | undefined;
    const env = () => {
      if (!ctx) throw new Error("[test-support] [container-runtime-contract] setup did not finish");
      return ctx;
    };
    const prefix = `rct-${randomBytes(4).toString("hex")}`;
    const made = { containers: new Set<string>(), images: new Set<string>(), volumes: new Set<string>(), networks: new Set<string>() };
    const images = { app: "", exits: "", outgrows: "" };
    let appBuildLog: string[] = [];

    /** A tar context with a Dockerfile whose first lines are `FROM <base>` and the run's labels. */
    const context = (base: "node" | "busybox", lines: string[], files: Record<string, string> = {}) => {
      const labels = Object.entries(env().labels).map(([key, value]) => `LABEL ${JSON.stringify(key)}=${JSON.stringify(value)}`);
      const dockerfile = [`FROM ${env().baseImages[base]}`, ...labels, ...lines, ""].join("\n");
      const entries = Object.entries({ Dockerfile: dockerfile, ...files }).map(([path, content]) => ({
        path,
        type: "file" as const,
        content: Buffer.from(content),
      }));
      return writeTar(entries);
    };
    const build = (tar: Buffer, overrides: Partial<BuildRequest> = {}) => {
      const tag = `${prefix}/image:${made.images.size}`;
      made.images.add(tag);
      return env().runtime.buildImage({
        context: Readable.from([tar]),
        dockerfile: "Dockerfile",
        tag,
        labels: env().labels,
        memoryMb: 256,
        timeoutMs: 60_000,
        onLog: () => undefined,
        ...overrides,
      });
    };
    const buildFailure = async (tar: Buffer, overrides: Partial<BuildRequest> = {}) => {
      const error = await build(tar, overrides).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(BuildFailure);
      return error as BuildFailure;
    };
    const run = async (role: string, overrides: Partial<ContainerSpec> = {}): Promise<ContainerHandle> => {
      const spec: ContainerSpec = {
        name: `${prefix}-${role}`,
        image: images.app,
        labels: { ...env().labels, "reposite-contract.role": role },
        env: { GREETING: "hello from the contract", DATA_DIR: "/data" },
        port: 8080,
        memoryMb: 128,
        cpus: 1,
        pidsLimit: 64,
        network: `${prefix}-net`,
        ...overrides,
      };
      made.networks.add(spec.network);
      if (spec.volume) made.volumes.add(spec.volume.name);
      const handle = await env().runtime.runContainer(spec);
      made.containers.add(handle.id);
      return handle;
    };
    const untilStopped = async (id: string) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const state = await env().runtime.inspectContainer(id);
        if (!state?.running || Date.now() > deadline) return state;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    beforeAll(async () => {
      ctx = await setup();
      const lines: string[] = [];
      const [app, exits, outgrows] = await Promise.all([
        build(
          context(
            "node",
            [
              "# reposite-test: run log app starting",
              "# reposite-test: run log warming up",
              "# reposite-test: run log ready",
              "COPY server.js /app/server.js",
              "ENV FROM_IMAGE=yes",
              "RUN echo built-step-one",
              'RUN echo "built step two"',
              'CMD ["node", "/app/server.js"]',
            ],
            { "server.js": APP_SERVER },
          ),
          { onLog: (line) => lines.push(line) },
        ),
        build(context("node", ["# reposite-test: run exit 7", 'CMD ["node", "-e", "setTimeout(() => process.exit(7), 200)"]'])),
        build(
          context("node", [
            "# reposite-test: run oom",
            'CMD ["node", "-e", "const kept = []; setInterval(() => kept.push(Buffer.alloc(16 << 20, 1)), 10)"]',
          ]),
        ),
      ]);
      images.app = app.id;
      images.exits = exits.id;
      images.outgrows = outgrows.id;
      appBuildLog = lines.map(stepOutput);
    });

    afterAll(async () => {
      if (!ctx) return;
      const runtime = ctx.runtime;
      const leftover = await runtime.listContainers(ctx.labels).catch(() => []);
      const ids = new Set([...made.containers, ...leftover.map((container) => container.id)]);
      await Promise.all([...ids].map((id) => runtime.removeContainer(id).catch(() => undefined)));
      await Promise.all([...made.volumes].map((volume) => runtime.removeVolume(volume).catch(() => undefined)));
      await Promise.all([...made.networks].map((network) => runtime.removeNetwork(network).catch(() => undefined)));
      for (const image of [...made.images, images.app, images.exits, images.outgrows]) {
        if (image) await runtime.removeImage(image).catch(() => undefined);
      }
      await ctx.teardown();
    });

    it("answers ping and names itself", async () => {
      await env().runtime.ping();
      expect(env().runtime.name).not.toBe("");
    });

    it("builds an image from a tar context, its log one line at a time as it comes", async () => {
      expect(images.app).not.toBe("");
      expect(appBuildLog).toContain("built-step-one");
      expect(appBuildLog).toContain("built step two");
      for (const line of appBuildLog) expect(line).not.toMatch(/[\r\n]/);
      expect(appBuildLog.findIndex((line) => line === "built-step-one")).toBeLessThan(appBuildLog.indexOf("built step two"));
      expect(await env().runtime.imageSize(images.app)).toBeGreaterThan(0);
    });

    it("takes the context as a web ReadableStream too, with build args", async () => {
      const tar = context("busybox", ["ARG WHO=nobody", "RUN echo built for $WHO"]);
      const lines: string[] = [];
      const image = await build(tar, {
        context: Readable.toWeb(Readable.from([tar])) as ReadableStream<Uint8Array>,
        buildArgs: { WHO: "the contract" },
        onLog: (line) => lines.push(line),
      });
      expect(image.id).not.toBe("");
      expect(lines.map(stepOutput)).toContain("built for the contract");
    });

    it("fails a build whose step fails, with the step's exit code", async () => {
      const lines: string[] = [];
      const failure = await buildFailure(context("busybox", ["RUN echo before the failure", "RUN exit 3"]), { onLog: (line) => lines.push(line) });
      expect(failure.reason).toBe("failed");
      expect(failure.exitCode).toBe(3);
      expect(lines.map(stepOutput)).toContain("before the failure");
    });

    it("fails a build that outgrows its memory as out_of_memory (exit code 137)", async () => {
      const failure = await buildFailure(context("busybox", ["# reposite-test: oom", "RUN head -c 300m /dev/zero | tail"]), { memoryMb: 64 });
      expect(failure.reason).toBe("out_of_memory");
      expect(failure.exitCode).toBe(137);
    });

    it("stops a build at its time limit", async () => {
      // The step would sleep far past this test's own time limit: a build the limit did not stop
      // fails the test by timing out (no wall-clock bound that a busy machine could break).
      const failure = await buildFailure(context("busybox", ["RUN sleep 600"]), { timeoutMs: 1_500 });
      expect(failure.reason).toBe("timeout");
    });

    it("stops a build when its signal aborts, and does not start one whose signal already did", async () => {
      // Aborted once the build is at its steps (a line naming the first one is logged), not after a
      // delay that may end before the build starts on a busy machine. The second step would sleep
      // far past this test's time limit: a build the abort did not stop fails the test by timing out.
      const mark = `abort-once-running-${randomBytes(4).toString("hex")}`;
      const controller = new AbortController();
      const failure = await buildFailure(context("busybox", [`RUN echo ${mark}`, "RUN sleep 600"]), {
        signal: controller.signal,
        onLog: (line) => {
          if (line.includes(mark)) controller.abort();
        },
      });
      expect(controller.signal.aborted).toBe(true);
      expect(failure.reason).toBe("cancelled");
      const again = await buildFailure(context("busybox", ["RUN sleep 30"]), { signal: AbortSignal.abort() });
      expect(again.reason).toBe("cancelled");
    });

    it("runs a container with labels, env and PORT, answering HTTP on 127.0.0.1 only", async () => {
      const handle = await run("web");
      expect(handle.host).toBe("127.0.0.1");
      expect(handle.hostPort).toBeGreaterThan(0);
      const body = await textOf(`http://127.0.0.1:${handle.hostPort}/anything`);
      expect(body).toContain('"GREETING":"hello from the contract"');
      expect(body).toContain('"PORT":"8080"');
      expect(body).toContain('"FROM_IMAGE":"yes"');
      if (env().publishedHostIps) expect(await env().publishedHostIps!(handle.id)).toEqual(["127.0.0.1"]);

      const state = await env().runtime.inspectContainer(handle.id);
      expect(state).toMatchObject({ id: handle.id, running: true, exitCode: null, oomKilled: false, finishedAt: null, hostPort: handle.hostPort });
      expect(Number.isNaN(Date.parse(state!.startedAt!))).toBe(false);
      const [summary] = await env().runtime.listContainers({ ...env().labels, "reposite-contract.role": "web" });
      expect(summary).toMatchObject({ id: handle.id, name: `${prefix}-web`, running: true, hostPort: handle.hostPort });
      expect(summary!.labels).toMatchObject({ ...env().labels, "reposite-contract.role": "web" });
    });

    it("refuses a second container of the same name", async () => {
      await run("unique");
      await expect(run("unique")).rejects.toThrow();
    });

    it("keeps the last lines of a container's output, stdout and stderr in order", async () => {
      const handle = await run("chatty");
      const deadline = Date.now() + 15_000;
      while (!(await env().runtime.logs(handle.id, 10)).includes("ready") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await env().runtime.logs(handle.id, 10)).toEqual(["app starting", "warming up", "ready"]);
      expect(await env().runtime.logs(handle.id, 2)).toEqual(["warming up", "ready"]);
      expect(await env().runtime.logs("no-such-container", 10)).toEqual([]);
    });

    it("stops, starts and removes a container", async () => {
      const handle = await run("cycle");
      await textOf(`http://127.0.0.1:${handle.hostPort}/`);
      await env().runtime.stopContainer(handle.id, 2);
      const stopped = await env().runtime.inspectContainer(handle.id);
      expect(stopped).toMatchObject({ running: false, hostPort: null });
      expect(typeof stopped!.exitCode).toBe("number");
      expect(stopped!.finishedAt).not.toBeNull();
      await expect(fetch(`http://127.0.0.1:${handle.hostPort}/`, { signal: AbortSignal.timeout(3_000) })).rejects.toThrow();
      await env().runtime.stopContainer(handle.id, 2); // stopping a stopped one is fine
      const [listed] = await env().runtime.listContainers({ ...env().labels, "reposite-contract.role": "cycle" });
      expect(listed).toMatchObject({ id: handle.id, running: false, hostPort: null });

      const restarted = await env().runtime.startContainer(handle.id);
      expect(restarted).toMatchObject({ running: true, exitCode: null });
      expect(restarted.hostPort).toBeGreaterThan(0);
      expect(await textOf(`http://127.0.0.1:${restarted.hostPort}/`)).toContain('"PORT":"8080"');

      await env().runtime.removeContainer(handle.id);
      expect(await env().runtime.inspectContainer(handle.id)).toBeNull();
      expect(await env().runtime.listContainers({ ...env().labels, "reposite-contract.role": "cycle" })).toEqual([]);
    });

    it("reports the exit code of a container that exits", async () => {
      const handle = await run("exits", { image: images.exits });
      const state = await untilStopped(handle.id);
      expect(state).toMatchObject({ running: false, exitCode: 7, oomKilled: false, hostPort: null });
    });

    it("reports a container that outgrows its memory as OOM-killed", async () => {
      const handle = await run("outgrows", { image: images.outgrows, memoryMb: 64 });
      const state = await untilStopped(handle.id);
      expect(state).toMatchObject({ running: false, exitCode: 137, oomKilled: true });
    });

    it("lists containers by every label given, running or not", async () => {
      const extra = { "reposite-contract.list": prefix };
      const a = await run("list-a", { labels: { ...env().labels, ...extra, "reposite-contract.side": "a" } });
      const b = await run("list-b", { labels: { ...env().labels, ...extra, "reposite-contract.side": "b" } });
      await env().runtime.stopContainer(b.id, 2);
      const both = await env().runtime.listContainers(extra);
      expect(both.map((container) => container.id).sort()).toEqual([a.id, b.id].sort());
      expect(both.find((container) => container.id === b.id)?.running).toBe(false);
      const onlyA = await env().runtime.listContainers({ ...extra, "reposite-contract.side": "a" });
      expect(onlyA.map((container) => container.id)).toEqual([a.id]);
      expect(await env().runtime.listContainers({ ...extra, "reposite-contract.side": "c" })).toEqual([]);
    });

    it("keeps a named volume's data across two containers, and tells its size", async () => {
      const volume = { name: `${prefix}-data`, path: "/data" };
      const note = "kept across containers ✓";
      const first = await run("volume-1", { volume });
      await textOf(`http://127.0.0.1:${first.hostPort}/`); // up
      const put = await fetch(`http://127.0.0.1:${first.hostPort}/files/note.txt`, { method: "PUT", body: note });
      expect(put.status).toBe(204);
      await env().runtime.removeContainer(first.id);
      const second = await run("volume-2", { volume });
      expect(await textOf(`http://127.0.0.1:${second.hostPort}/files/note.txt`)).toBe(note);
      expect(await env().runtime.volumeSize(volume.name)).toBeGreaterThanOrEqual(Buffer.byteLength(note));

      await expect(env().runtime.removeVolume(volume.name)).rejects.toThrow(); // in use
      await env().runtime.removeContainer(second.id);
      await env().runtime.removeVolume(volume.name);
      expect(await env().runtime.volumeSize(volume.name)).toBeNull();
    });

    it("does not remove an image a container uses", async () => {
      const tar = context("busybox", ['CMD ["sleep", "30"]']);
      const image = await build(tar);
      const handle = await run("image-user", { image: image.id, command: ["sleep", "30"] });
      await expect(env().runtime.removeImage(image.id)).rejects.toThrow();
      await env().runtime.removeContainer(handle.id);
      await env().runtime.removeImage(image.id);
      expect(await env().runtime.imageSize(image.id)).toBeNull();
    });

    it("removes a network once its containers are gone", async () => {
      const network = `${prefix}-net-own`;
      const handle = await run("network", { network });
      await expect(env().runtime.removeNetwork(network)).rejects.toThrow(); // a running container is on it
      await env().runtime.removeContainer(handle.id);
      await env().runtime.removeNetwork(network);
      // made again for the next container
      const again = await run("network-again", { network });
      expect(await textOf(`http://127.0.0.1:${again.hostPort}/`)).toContain("GREETING");
      await env().runtime.removeContainer(again.id);
      await env().runtime.removeNetwork(network);
    });

    it("tells resource use when it has the stats capability", async () => {
      const { runtime } = env();
      if (!runtime.capabilities.stats || !runtime.stats) return;
      const handle = await run("stats", { memoryMb: 96 });
      await textOf(`http://127.0.0.1:${handle.hostPort}/`);
      const stats = await runtime.stats(handle.id);
      expect(stats.memoryLimitBytes).toBe(96 * MiB);
      expect(stats.memoryBytes).toBeGreaterThan(0);
      expect(stats.cpuPercent).toBeGreaterThanOrEqual(0);
      expect(stats.networkRxBytes).toBeGreaterThanOrEqual(0);
    });

    it("measures a container's writable layer, and writes outside the volume grow it", async () => {
      const { runtime } = env();
      const handle = await run("layer", { env: { GREETING: "layer", DATA_DIR: "/tmp" } });
      await textOf(`http://127.0.0.1:${handle.hostPort}/`);
      const before = await runtime.containerSize(handle.id);
      expect(before).toBeGreaterThanOrEqual(0);
      const put = await fetch(`http://127.0.0.1:${handle.hostPort}/files/big.bin`, { method: "PUT", body: Buffer.alloc(2 * MiB, 1) });
      expect(put.status).toBe(204);
      expect(await runtime.containerSize(handle.id)).toBeGreaterThanOrEqual(before! + 2 * MiB);
      await runtime.removeContainer(handle.id);
      expect(await runtime.containerSize(handle.id)).toBeNull();
    });

    it("runs a command inside a container when it has the exec capability", async () => {
      const { runtime } = env();
      if (!runtime.capabilities.exec || !runtime.exec) return;
      const handle = await run("exec");
      const result = await runtime.exec(handle.id, ["sh", "-c", "echo out; echo err >&2; exit 3"]);
      expect(result.exitCode).toBe(3);
      expect(result.output.split("\n").sort()).toEqual(["", "err", "out"]);
      const cut = await runtime.exec(handle.id, ["sh", "-c", "head -c 5000 /dev/zero"], { maxBytes: 100 });
      expect(cut).toEqual({ exitCode: 0, output: "\0".repeat(100) });
    });

    it("opens a terminal inside a container when it has the execTty capability", async () => {
      const { runtime } = env();
      if (!runtime.capabilities.execTty || !runtime.openTerminal) return;
      const handle = await run("terminal");
      const terminal = await runtime.openTerminal(handle.id, { command: ["sh"], cols: 80, rows: 24 });
      let screen = "";
      terminal.onData((data) => (screen += Buffer.from(data).toString()));
      const exited = new Promise<void>((resolve) => terminal.onExit(resolve));
      terminal.write("echo $((6*7))x\r");
      const deadline = Date.now() + 10_000;
      while (!screen.includes("42x") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(screen).toContain("42x");
      await terminal.resize(100, 30);
      terminal.write("stty size\r");
      while (!screen.includes("30 100") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(screen).toContain("30 100");
      terminal.write("exit\r");
      await exited;
    });

    it("finds nothing missing, and removing what is missing is fine", async () => {
      const missing = `${prefix}-missing`;
      expect(await env().runtime.inspectContainer(missing)).toBeNull();
      expect(await env().runtime.imageSize(`${prefix}/missing:1`)).toBeNull();
      expect(await env().runtime.volumeSize(missing)).toBeNull();
      await env().runtime.stopContainer(missing);
      await env().runtime.removeContainer(missing);
      await env().runtime.removeImage(`${prefix}/missing:1`);
      await env().runtime.removeVolume(missing);
      await env().runtime.removeNetwork(missing);
      await expect(env().runtime.startContainer(missing)).rejects.toThrow();
    });
  });
}

/** The body of a 200 answer, retried while the app is still coming up. */
async function textOf(url: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      const text = await response.text();
      if (response.status === 200) return text;
      if (Date.now() > deadline) throw new Error(`${url} answered ${response.status}: ${text}`);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
