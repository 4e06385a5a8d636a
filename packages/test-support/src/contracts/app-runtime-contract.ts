import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { AppAddress, AppHandle, AppImage, AppRuntime, AppSpec, ImageBuilder } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { networkVantage } from "../swarm.js";
import { writeTar } from "../tar.js";

/** One fetch made from a vantage point: the answer, or why there was none. */
export type VantageAnswer = { status: number; body: string } | { error: string };

/** A place requests are made from: a network the runtime made (the edge's seat), or this machine. */
export interface Vantage {
  get(url: string, timeoutMs?: number): Promise<VantageAnswer>;
  close(): Promise<void>;
}

/** Requests made from this machine: how an app whose address names no network is reached. */
export function localVantage(): Vantage {
  return {
    async get(url, timeoutMs = 2_000) {
      try {
        const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
        return { status: answer.status, body: await answer.text() };
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        return { error: cause ?? (error instanceof Error ? error.name : String(error)) };
      }
    },
    close: async () => undefined,
  };
}

export interface AppRuntimeContractSetup {
  runtime: AppRuntime;
  /** Builds the contract's app images where the runtime can run them. */
  builder: ImageBuilder;
  /** `node` runs `node`; `busybox` has `sh` and `sleep`. */
  baseImages: { node: string; busybox: string };
  /** Labels unique to this run: on everything the contract makes, so `teardown` finds leftovers. */
  labels: Record<string, string>;
  /**
   * A vantage point on `network` (an `AppAddress.network`, or an `AppSpec.network` to stand where
   * an app of that network stands), or on this machine for null. By default: this machine for null,
   * else a small container on the network (`networkVantage`, from `baseImages.node`).
   */
  vantage?(network: string | null): Promise<Vantage>;
  /**
   * The app's own addresses inside its network (a task's or a container's IP), where it answers on
   * its `AppSpec.port`: to prove another app's network cannot reach them, and its own can.
   */
  internalAddresses(id: string): Promise<string[]>;
  /** Names of the networks that exist now. */
  networks(): Promise<string[]>;
  teardown(): Promise<void>;
}

/**
 * The contract's app: answers its version, greeting, `PORT` and host as JSON; `/grow` makes it
 * outgrow any memory limit. It prints three lines at start (stdout, stderr, stdout).
 */
const APP_SERVER = `
const http = require("node:http"), os = require("node:os");
console.log("app starting");
setTimeout(() => console.error("warming up"), 40);
process.on("SIGTERM", () => process.exit(0));
const kept = [];
http.createServer((req, res) => {
  if (req.url === "/grow") {
    setInterval(() => kept.push(Buffer.alloc(8 * 1024 * 1024, 1)), 20);
    return res.end("growing");
  }
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ version: process.env.APP_VERSION, greeting: process.env.GREETING, port: process.env.PORT, host: os.hostname() }));
}).listen(Number(process.env.PORT), () => setTimeout(() => console.log("ready"), 80));
`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`[app-runtime-contract] ${what} did not happen within ${timeoutMs} ms`);
    await sleep(250);
  }
}

const isAnswer = (answer: VantageAnswer): answer is { status: number; body: string } => "status" in answer;

/**
 * What hosting needs of an app runtime, for any implementation: an app run from a built image with
 * its labels, env and `PORT`, reached at the address the runtime gives (from this machine when it
 * names no network, else from the network it names; never assumed to be 127.0.0.1) and from no
 * other app's network; its logs; every capability dropped; for an orchestrator, three rollouts
 * under steady requests with none lost, and a rollout to an image that never becomes healthy
 * rolled back with the old version answering every request meanwhile; for a caller rollout, a new
 * version run beside the old one on the same network, both answering, and the old one removed
 * without the new one's network; an OOM kill reported; resource use, disk figures, a terminal
 * and a volume kept from one app to the next, as the capabilities say; stop, start, list by
 * labels, remove (the app and its network); and what is missing is fine.
 *
 * A provider outside this repository runs it from its own vitest file (docs/providers.md).
 */
export function appRuntimeContract(name: string, setup: () => Promise<AppRuntimeContractSetup>, options: { namePrefix?: string } = {}): void {
  describe(`app runtime contract: ${name}`, () => {
    let ctx: AppRuntimeContractSetup | undefined;
    const env = () => {
      if (!ctx) throw new Error("[test-support] [app-runtime-contract] setup did not finish");
      return ctx;
    };
    /** Names of apps, networks and image repositories start with it (`namePrefix`, `arc` by default). */
    const prefix = `${options.namePrefix ?? "arc"}-${randomBytes(4).toString("hex")}`;
    const images: Record<"v1" | "v2" | "bad", AppImage | null> = { v1: null, v2: null, bad: null };
    const apps = new Map<string, AppHandle>();
    /** What each app was run with, by role: its own network and port. */
    const specs = new Map<string, AppSpec>();
    const vantages: Vantage[] = [];
    let main: AppHandle;
    /** The volume the volume case gives its apps one after another. */
    const volumeName = `${prefix}-data`;
    /** The host name main's first copy answered with: what tells its answers from anyone else's. */
    let mainHost = "";

    const build = (tag: string, lines: string[], base: "node" | "busybox" = "node") => {
      const dockerfile = [`FROM ${env().baseImages[base]}`, ...lines, ""].join("\n");
      const tar = writeTar([
        { path: "Dockerfile", type: "file", content: Buffer.from(dockerfile) },
        { path: "server.js", type: "file", content: Buffer.from(APP_SERVER) },
      ]);
      return env().builder.build({ context: Readable.from([tar]), dockerfile: "Dockerfile", tag: `${prefix}/app:${tag}`, labels: env().labels, memoryMb: 256, timeoutMs: 120_000, onLog: () => undefined });
    };
    const appImage = (version: string) => ["COPY server.js /app/server.js", `ENV APP_VERSION=${version}`, 'CMD ["node", "/app/server.js"]'];
    const run = async (role: string, overrides: Partial<AppSpec> = {}) => {
      const spec: AppSpec = {
        name: `${prefix}-${role}`,
        image: images.v1!.reference,
        labels: { ...env().labels, "reposite-contract.role": role },
        env: { GREETING: "hello from the contract" },
        port: 8080,
        memoryMb: 128,
        cpus: 0.5,
        pidsLimit: 64,
        healthPath: "/",
        network: `${prefix}-${role}-net`,
        ...overrides,
      };
      const handle = await env().runtime.run(spec);
      apps.set(role, handle);
      specs.set(role, spec);
      return handle;
    };
    let vantagesMade = 0;
    const vantage = async (network: string | null) => {
      const { vantage: own, baseImages, labels } = env();
      const made = own
        ? await own(network)
        : network === null
          ? localVantage()
          : await networkVantage(network, { name: `${prefix}-vantage-${vantagesMade++}`, image: baseImages.node, labels });
      vantages.push(made);
      return made;
    };
    const url = (address: AppAddress, path = "/") => `http://${address.host}:${address.port}${path}`;
    /** The app's JSON answer at `address`, once it answers there. */
    const answerAt = async (address: AppAddress, from: Vantage) =>
      waitFor(
        `${address.host}:${address.port} answering`,
        async () => {
          const answer = await from.get(url(address));
          return isAnswer(answer) && answer.status === 200 ? (JSON.parse(answer.body) as Record<string, string>) : null;
        },
        90_000,
      );
    /** The app's JSON answer at the address `run()` gave, from where the runtime says to reach it. */
    const answerOf = async (handle: AppHandle, from: Vantage) => answerAt(handle.address, from);
    const specOf = (role: string) => {
      const spec = specs.get(role);
      if (!spec) throw new Error(`[test-support] [app-runtime-contract] no app ${role} was run`);
      return spec;
    };

    beforeAll(async () => {
      ctx = await setup();
      images.v1 = await build("v1", appImage("v1"));
      images.v2 = await build("v2", appImage("v2"));
      // Runs, but never answers HTTP: its health check never passes.
      images.bad = await build("bad", ['CMD ["sleep", "3600"]'], "busybox");
      main = await run("main");
    }, 300_000);
    afterAll(async () => {
      for (const made of vantages) await made.close().catch(() => undefined);
      for (const handle of apps.values()) await env().runtime.remove(handle.id).catch(() => undefined);
      await env().runtime.removeVolume(volumeName).catch(() => undefined);
      for (const image of Object.values(images)) if (image) await env().builder.remove(image).catch(() => undefined);
      await ctx?.teardown();
    }, 180_000);

    it("names itself with its specification version and answers ping", async () => {
      expect(env().runtime.specificationVersion).toBe("v1");
      expect(["caller", "orchestrator"]).toContain(env().runtime.capabilities.rollout);
      await env().runtime.ping();
    });

    it("runs an app from a built image with its env and PORT, reached at the address the runtime gives", async () => {
      const from = await vantage(main.address.network);
      const answer = await answerOf(main, from);
      expect(answer).toMatchObject({ version: "v1", greeting: "hello from the contract", port: "8080" });
      mainHost = answer.host!;
      expect(await env().runtime.address(main.id)).toEqual(main.address);
      // A runtime may count an app as running only once its own health check passed: a moment later.
      const state = await waitFor("inspect saying running", async () => {
        const found = await env().runtime.inspect(main.id);
        return found?.running ? found : null;
      }, 30_000);
      expect(state).toMatchObject({ id: main.id, wanted: true, running: true, image: images.v1!.reference });
      const listed = await env().runtime.list({ ...env().labels, "reposite-contract.role": "main" });
      expect(listed.map((app) => app.id)).toEqual([main.id]);
      expect(listed[0]).toMatchObject({ running: true, labels: expect.objectContaining(env().labels) });
    });

    it("keeps the app's output, stdout and stderr in order", async () => {
      const lines = await waitFor("three log lines", async () => {
        const found = await env().runtime.logs(main.id, 50);
        return found.includes("ready") ? found : null;
      }, 30_000);
      const order = ["app starting", "warming up", "ready"].map((line) => lines.indexOf(line));
      expect(order.every((index) => index >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    });

    it("keeps another app's network from reaching the app, by name or by address", async () => {
      const other = await run("other");
      const { port } = specOf("main");
      // Where another app stands: on its own network (`AppSpec.network`), whatever address the runtime gives.
      const fromOther = await vantage(specOf("other").network);
      // The vantage works: the other app answers at its own addresses on its own network.
      const otherAddresses = await env().internalAddresses(other.id);
      expect(otherAddresses.length).toBeGreaterThan(0);
      expect(await answerAt({ host: otherAddresses[0]!, port, network: specOf("other").network }, fromOther)).toMatchObject({ version: "v1" });
      // Whatever else answers an address outside the network (a gateway, a proxy), main must not.
      const fromMain = (answer: VantageAnswer) => isAnswer(answer) && answer.body.includes(JSON.stringify(mainHost));
      expect(mainHost).not.toBe("");
      // By the address the runtime gives (meant for its own vantage, not for other apps) and by name.
      expect(fromMain(await fromOther.get(url(main.address), 3_000))).toBe(false);
      expect(fromMain(await fromOther.get(`http://${specOf("main").name}:${port}/`, 3_000))).toBe(false);
      const addresses = await env().internalAddresses(main.id);
      expect(addresses.length).toBeGreaterThan(0);
      const fromMainNetwork = await vantage(specOf("main").network);
      for (const address of addresses) {
        expect(fromMain(await fromOther.get(`http://${address}:${port}/`, 3_000))).toBe(false);
        // The same address from main's own network is main: the check above could have seen it.
        const own = await waitFor("main answering at its own address on its network", async () => {
          const answer = await fromMainNetwork.get(`http://${address}:${port}/`, 3_000);
          return fromMain(answer) ? answer : null;
        }, 30_000);
        expect(fromMain(own)).toBe(true);
      }
    });

    it("runs the app with no capabilities and without the Docker socket", async () => {
      if (!env().runtime.capabilities.exec) return;
      const status = await env().runtime.exec!(main.id, ["node", "-e", "process.stdout.write(require('fs').readFileSync('/proc/self/status', 'utf8'))"]);
      expect(status.output).toMatch(/^CapEff:\s+0+$/m);
      expect(status.output).toMatch(/^CapBnd:\s+0+$/m);
      const socket = await env().runtime.exec!(main.id, ["node", "-e", "process.exit(require('fs').existsSync('/var/run/docker.sock') ? 1 : 0)"]);
      expect(socket.exitCode).toBe(0);
    });

    it("answers the app's resource use, its disk figures and a terminal, as its capabilities say", async () => {
      const { runtime } = env();
      if (runtime.capabilities.stats) {
        const stats = await runtime.stats!(main.id);
        expect(stats.memoryLimitBytes).toBe(specOf("main").memoryMb * 1024 * 1024);
        expect(stats.memoryBytes).toBeGreaterThan(0);
        expect(stats.memoryBytes).toBeLessThan(stats.memoryLimitBytes);
      }
      if (runtime.capabilities.disk) {
        const disk = await runtime.diskUsage!(main.id);
        expect(disk.volumeBytes).toBeNull();
        expect(disk.writableBytes === null || disk.writableBytes >= 0).toBe(true);
      }
      if (runtime.capabilities.terminal) {
        const terminal = await runtime.openTerminal!(main.id, { command: ["sh"], cols: 80, rows: 24 });
        const output: Buffer[] = [];
        terminal.onData((data) => output.push(Buffer.from(data)));
        // The shell's own arithmetic: the typed line echoed back does not contain the answer.
        terminal.write("echo term-$((6*7))\n");
        await waitFor("the terminal's answer", async () => Buffer.concat(output).toString().includes("term-42"), 15_000);
        terminal.close();
      }
    });

    it("rolls out new images with every request answered, and rolls back one that never becomes healthy while the old one answers every request", async () => {
      if (env().runtime.capabilities.rollout !== "orchestrator") return;
      const from = await vantage(main.address.network);
      /** Steady requests (a new connection each) while `during` runs: the versions that answered, and what failed. */
      const underLoad = async <T>(during: () => Promise<T>) => {
        let polling = true;
        const failures: string[] = [];
        const versions: string[] = [];
        const poller = (async () => {
          while (polling) {
            const answer = await from.get(url(main.address), 2_000);
            if (isAnswer(answer) && answer.status === 200) versions.push((JSON.parse(answer.body) as { version: string }).version);
            else failures.push(isAnswer(answer) ? `${answer.status} ${answer.body.slice(0, 80)}` : answer.error);
            await sleep(50);
          }
        })();
        const result = await during().finally(() => (polling = false));
        await poller;
        return { result, failures, versions };
      };

      // Three deploys: v2, back to v1, v2 again.
      for (const image of [images.v2!, images.v1!, images.v2!]) {
        const progress: string[] = [];
        const deploy = await underLoad(() => env().runtime.replace!(main.id, { image: image.reference }, { onProgress: (line) => progress.push(line) }));
        expect(deploy.result.outcome).toBe("updated");
        expect(progress.length).toBeGreaterThan(0);
        expect(deploy.failures).toEqual([]);
        expect(deploy.versions.length).toBeGreaterThan(10);
        expect((await env().runtime.inspect(main.id))?.image).toBe(image.reference);
      }
      expect(await answerOf(main, from)).toMatchObject({ version: "v2" });

      const bad = await underLoad(() => env().runtime.replace!(main.id, { image: images.bad!.reference }));
      expect(bad.result.outcome).toBe("rolled_back");
      expect(bad.failures).toEqual([]);
      expect(bad.versions.length).toBeGreaterThan(20);
      expect(new Set(bad.versions)).toEqual(new Set(["v2"]));
      expect((await env().runtime.inspect(main.id))?.image).toBe(images.v2!.reference);
    }, 300_000);

    it("runs a new version beside the old one on the app's network when the caller rolls out: both answer, and removing the old one keeps the new one and its network", async () => {
      if (env().runtime.capabilities.rollout !== "caller") return;
      const { network } = specOf("main");
      // As core deploys on such a runtime: a second app on the same network, checked, switched to, the first removed.
      const next = await run("next", { image: images.v2!.reference, network });
      const fromMain = await vantage(main.address.network);
      const fromNext = await vantage(next.address.network);
      expect(await answerOf(main, fromMain)).toMatchObject({ version: "v1" });
      expect(await answerOf(next, fromNext)).toMatchObject({ version: "v2" });
      expect(next.address).not.toEqual(main.address);
      expect((await env().runtime.inspect(next.id))?.image).toBe(images.v2!.reference);

      await env().runtime.remove(main.id);
      apps.delete("main");
      expect(await env().runtime.inspect(main.id)).toBeNull();
      expect(await env().networks()).toContain(network);
      expect(await answerOf(next, fromNext)).toMatchObject({ version: "v2", greeting: "hello from the contract" });
      // The cases below go on with the new version as the app.
      main = next;
    }, 180_000);

    it("reports an app that outgrows its memory as OOM-killed, with exit code 137", async () => {
      const hungry = await run("hungry", { memoryMb: 48 });
      const from = await vantage(hungry.address.network);
      await answerOf(hungry, from);
      await from.get(url(hungry.address, "/grow"), 2_000);
      const state = await waitFor("the OOM kill", async () => {
        const found = await env().runtime.inspect(hungry.id);
        return found?.oomKilled ? found : null;
      }, 60_000);
      expect(state.exitCode).toBe(137);
    }, 120_000);

    it("keeps an app's volume for the next app that mounts it, measures it, and removes it with removeVolume", async () => {
      const { runtime } = env();
      if (!runtime.capabilities.exec) return; // the data is written and read from inside the app
      const inApp = async (id: string, script: string) => {
        await waitFor("the app running", async () => (await runtime.inspect(id))?.running, 60_000);
        return runtime.exec!(id, ["node", "-e", script]);
      };
      const MB = 1024 * 1024;
      const first = await run("keeper", { volume: { name: volumeName, path: "/data", limitMb: 64 } });
      const written = await inApp(first.id, `require("fs").writeFileSync("/data/kept.bin", Buffer.alloc(${MB}, 1)); process.stdout.write("written")`);
      expect(written).toMatchObject({ exitCode: 0, output: "written" });
      await runtime.remove(first.id);
      apps.delete("keeper");

      const second = await run("keeper-again", { volume: { name: volumeName, path: "/data", limitMb: 64 } });
      const read = await inApp(second.id, `process.stdout.write(String(require("fs").statSync("/data/kept.bin").size))`);
      expect(read).toMatchObject({ exitCode: 0, output: String(MB) });
      if (runtime.capabilities.disk) expect((await runtime.diskUsage!(second.id, volumeName)).volumeBytes).toBeGreaterThanOrEqual(MB);
      if (runtime.capabilities.disk && runtime.volumeSize) expect(await runtime.volumeSize(volumeName)).toBeGreaterThanOrEqual(MB);
      if (runtime.capabilities.diskLimits) {
        // A larger limit keeps the data, and the app goes on reading it.
        expect(await runtime.diskLimits!()).toMatchObject({ atWriteTime: expect.any(Boolean), note: expect.any(String) });
        await runtime.resizeVolume!(volumeName, 96);
        expect(await inApp(second.id, `process.stdout.write(String(require("fs").statSync("/data/kept.bin").size))`)).toMatchObject({ exitCode: 0, output: String(MB) });
      }
      await runtime.remove(second.id);
      apps.delete("keeper-again");

      await runtime.removeVolume(volumeName);
      await runtime.removeVolume(volumeName);
      const third = await run("keeper-fresh", { volume: { name: volumeName, path: "/data", limitMb: 64 } });
      expect(await inApp(third.id, `process.stdout.write(String(require("fs").existsSync("/data/kept.bin")))`)).toMatchObject({ exitCode: 0, output: "false" });
      await runtime.remove(third.id);
      apps.delete("keeper-fresh");
      await runtime.removeVolume(volumeName);
    }, 240_000);

    it("stops and starts the app", async () => {
      // The app ends at SIGTERM; the grace is how long a runtime that takes it would wait before SIGKILL.
      await env().runtime.stop(main.id, { graceSeconds: 2 });
      const stopped = await env().runtime.inspect(main.id);
      expect(stopped).toMatchObject({ wanted: false, running: false });
      expect(await env().runtime.address(main.id)).toBeNull();
      await env().runtime.stop(main.id);
      const started = await env().runtime.start(main.id);
      expect(started).toMatchObject({ wanted: true, running: true });
      // Read again: a runtime may answer at another address after a start (a new published port).
      const address = await waitFor("an address after the start", () => env().runtime.address(main.id), 30_000);
      const from = await vantage(address.network);
      expect(await answerAt(address, from)).toMatchObject({ greeting: "hello from the contract" });
    }, 180_000);

    it("removes an app and its network; what is missing is fine", async () => {
      for (const made of vantages.splice(0)) await made.close();
      for (const [role, handle] of apps) {
        await env().runtime.remove(handle.id);
        expect(await env().runtime.inspect(handle.id)).toBeNull();
        expect(await env().runtime.list({ ...env().labels, "reposite-contract.role": role })).toEqual([]);
        expect(await env().networks()).not.toContain(specOf(role).network);
        apps.delete(role);
      }
      await env().runtime.remove(main.id);
      await env().runtime.stop(main.id);
      expect(await env().runtime.logs(main.id, 10)).toEqual([]);
      expect(await env().runtime.address(main.id)).toBeNull();
    }, 180_000);
  });
}
