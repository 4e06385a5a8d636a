import { randomBytes } from "node:crypto";
import type { AppAddress, AppChange, AppHandle, AppRuntime, AppSpec, AppState, AppSummary, RolloutOptions, RolloutResult } from "@reposite/core";
import type { MemoryContainerRuntime } from "./memory-container-runtime.js";

export interface MemoryAppRuntimeOptions {
  /** How long a new version may take to answer its health path before it is rolled back; 5 s by default. */
  healthTimeoutMs?: number;
  /** The pause between two health probes; 50 ms by default. */
  healthIntervalMs?: number;
  /** How long the old version keeps running after the new one took over (an orchestrator stopping its task); 200 ms by default. */
  stopDelayMs?: number;
}

/** The in-memory orchestrator, with what a test needs to look at. */
export interface MemoryAppRuntime extends AppRuntime {
  /** The engine's container serving the app now (each version is a container of its own), or null. */
  containerOf(id: string): string | null;
  /** Rollouts so far, with their outcome. */
  readonly rollouts: { id: string; image: string; outcome: RolloutResult["outcome"] }[];
}

interface MemoryApp {
  id: string;
  spec: AppSpec;
  /** The engine's container of the version that serves (or served last). */
  container: string;
  wanted: boolean;
  /** The last words on the app, as an orchestrator's task error. */
  message: string | null;
}

/**
 * An in-memory AppRuntime that rolls out like an orchestrator (`rollout: "orchestrator"`), over the
 * memory engine: each version of an app is a container of the engine (real HTTP on 127.0.0.1, its
 * address a loopback port, so the address changes at every rollout as a Swarm task's does).
 * `replace()` is start-first: the new version starts beside the old one and must answer its health
 * path (2xx or 3xx) within the health timeout; then it takes over and the old one stops a moment
 * later, else the new one goes and the old one keeps serving (`rolled_back`, with why). Progress
 * lines go to `onProgress`. OOM kills and exits come from the engine's markers (`# reposite-test:
 * run oom`, `run exit 3`), logs from the serving version's container.
 */
export function createMemoryAppRuntime(engine: MemoryContainerRuntime, options: MemoryAppRuntimeOptions = {}): MemoryAppRuntime {
  const apps = new Map<string, MemoryApp>();
  const rollouts: MemoryAppRuntime["rollouts"] = [];
  const healthTimeoutMs = options.healthTimeoutMs ?? 5_000;
  const healthIntervalMs = options.healthIntervalMs ?? 50;
  const stopDelayMs = options.stopDelayMs ?? 200;
  let versions = 0;

  const find = (id: string) => apps.get(id) ?? [...apps.values()].find((app) => app.spec.name === id) ?? null;
  /** A container of one version of the app. */
  const startVersion = async (spec: AppSpec) => {
    versions += 1;
    const handle = await engine.runContainer({
      name: `${spec.name}.${versions}`,
      image: spec.image,
      labels: spec.labels,
      env: spec.env,
      ...(spec.command ? { command: spec.command } : {}),
      port: spec.port,
      memoryMb: spec.memoryMb,
      cpus: spec.cpus,
      pidsLimit: spec.pidsLimit,
      ...(spec.volume ? { volume: spec.volume } : {}),
      network: spec.network,
    });
    return handle.id;
  };
  /** Whether the version answers its health path before the timeout; the reason when it does not. */
  const healthy = async (container: string, path: string): Promise<string | null> => {
    const deadline = Date.now() + healthTimeoutMs;
    let last = "no answer yet";
    for (;;) {
      const state = await engine.inspectContainer(container);
      if (!state?.running) return state?.oomKilled ? "task: non-zero exit (137): OOM-killed" : `task: non-zero exit (${state?.exitCode ?? "?"})`;
      try {
        const answer = await fetch(`http://127.0.0.1:${state.hostPort}${path}`, { redirect: "manual", signal: AbortSignal.timeout(1_000) });
        await answer.body?.cancel();
        if (answer.status >= 200 && answer.status < 400) return null;
        last = `answered ${answer.status}`;
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > deadline) return `task: unhealthy container (${last})`;
      await new Promise((resolve) => setTimeout(resolve, healthIntervalMs));
    }
  };

  return {
    specificationVersion: "v1",
    provider: `${engine.name} orchestrator`,
    capabilities: { rollout: "orchestrator", exec: false, terminal: false, stats: true, disk: true },
    rollouts,

    containerOf: (id) => find(id)?.container ?? null,

    ping: () => engine.ping(),

    async run(spec: AppSpec): Promise<AppHandle> {
      if (find(spec.name)) throw new Error(`[memory-orchestrator] the app name ${spec.name} is in use`);
      const app: MemoryApp = { id: randomBytes(12).toString("hex"), spec: structuredClone(spec), container: await startVersion(spec), wanted: true, message: null };
      apps.set(app.id, app);
      return { id: app.id, address: (await this.address(app.id))! };
    },

    async replace(id: string, change: AppChange, rollout: RolloutOptions = {}): Promise<RolloutResult> {
      const app = find(id);
      if (!app) throw new Error(`[memory-orchestrator] no app ${id} to replace`);
      const say = rollout.onProgress ?? (() => undefined);
      const spec: AppSpec = { ...app.spec, image: change.image, ...(change.env ? { env: change.env } : {}), labels: { ...app.spec.labels, ...change.labels } };
      say("update updating: starting the new version beside the old one");
      const next = await startVersion(spec);
      const problem = await healthy(next, spec.healthPath ?? "/");
      if (problem) {
        say(`update rollback_started: ${problem}`);
        await engine.removeContainer(next);
        app.message = problem;
        rollouts.push({ id: app.id, image: change.image, outcome: "rolled_back" });
        say("update rollback_completed");
        return { outcome: "rolled_back", message: `rollback completed (${problem})` };
      }
      const old = app.container;
      app.spec = spec;
      app.container = next;
      app.message = null;
      say("update completed: the new version serves");
      rollouts.push({ id: app.id, image: change.image, outcome: "updated" });
      // The old version is told to stop a moment after the switch, as an orchestrator's task shutdown.
      setTimeout(() => void engine.removeContainer(old).catch(() => undefined), stopDelayMs).unref?.();
      return { outcome: "updated", message: "update completed" };
    },

    async stop(id: string) {
      const app = find(id);
      if (!app) return;
      app.wanted = false;
      await engine.stopContainer(app.container);
    },

    async start(id: string): Promise<AppState> {
      const app = find(id);
      if (!app) throw new Error(`[memory-orchestrator] no app ${id} to start`);
      app.wanted = true;
      await engine.startContainer(app.container);
      return (await this.inspect(id))!;
    },

    async remove(id: string) {
      const app = find(id);
      if (!app) return;
      apps.delete(app.id);
      for (const container of await engine.listContainers(app.spec.labels)) if (container.name.startsWith(`${app.spec.name}.`)) await engine.removeContainer(container.id);
      await engine.removeContainer(app.container);
      if (![...apps.values()].some((other) => other.spec.network === app.spec.network)) await engine.removeNetwork(app.spec.network);
    },

    removeVolume: (name) => engine.removeVolume(name),

    async inspect(id: string): Promise<AppState | null> {
      const app = find(id);
      if (!app) return null;
      const state = await engine.inspectContainer(app.container);
      return {
        id: app.id,
        wanted: app.wanted,
        running: state?.running ?? false,
        exitCode: state?.exitCode ?? null,
        oomKilled: state?.oomKilled ?? false,
        startedAt: state?.startedAt ?? null,
        finishedAt: state?.finishedAt ?? null,
        image: app.spec.image,
        message: app.message,
      };
    },

    async list(labels: Record<string, string>): Promise<AppSummary[]> {
      const found: AppSummary[] = [];
      for (const app of apps.values()) {
        if (!Object.entries(labels).every(([key, value]) => app.spec.labels[key] === value)) continue;
        found.push({ id: app.id, name: app.spec.name, labels: { ...app.spec.labels }, running: (await engine.inspectContainer(app.container))?.running ?? false });
      }
      return found;
    },

    async logs(id: string, tail: number) {
      const app = find(id);
      return app ? engine.logs(app.container, tail) : [];
    },

    async address(id: string): Promise<AppAddress | null> {
      const app = find(id);
      const state = app?.wanted ? await engine.inspectContainer(app.container) : null;
      return state?.running && state.hostPort ? { host: "127.0.0.1", port: state.hostPort, network: null } : null;
    },

    async stats(id: string) {
      const app = find(id);
      if (!app) throw new Error(`[memory-orchestrator] no app ${id}`);
      return engine.stats!(app.container);
    },

    async diskUsage(id: string, volume?: string) {
      const app = find(id);
      return { writableBytes: app ? await engine.containerSize(app.container) : null, volumeBytes: volume ? await engine.volumeSize(volume) : null };
    },
  };
}
