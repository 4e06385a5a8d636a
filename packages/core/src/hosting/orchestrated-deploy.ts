import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import type { AppAddress, AppSpec, AppState } from "../ports/app-runtime.js";
import type { ContainerState } from "../ports/container-runtime.js";
import { AppRoutes } from "./app-routes.js";
import { containerName, networkName, volumeName } from "./app-names.js";
import type { AppContainer, DeploymentRecord } from "./deployment-record.js";
import { DeploymentStore } from "./deployment-store.js";
import { AppStartFailure, type StartFacts } from "./diagnosis/start-facts.js";
import { isHealthyStatus } from "./health-check.js";
import { HostingAvailability } from "./hosting-availability.js";
import { DEFAULT_HOSTING_SETTINGS, FREE_TIER, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { asOrchestrated, type PortsContainerRuntime } from "./runtime-from-ports.js";

/** What a launch on an orchestrating runtime needs (`AppContainers.launch` gathers it). */
export interface OrchestratedLaunch {
  /** The image's tag (or reference) as the deployment keeps it. */
  image: string;
  env: Record<string, string>;
  labels: Record<string, string>;
  memoryMb: number;
  diskMb: number;
  keepAlive: boolean;
  /** The app serving now (replaced by a rollout), or null for the first run. */
  current: AppContainer | null;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** How often the address is asked during a rollout: the route follows a new task within this. */
const FOLLOW_MS = 100;
/** Lines of the app's output kept for a failed start's diagnosis. */
const OUTPUT_LINES = 50;

/**
 * Deploys on a runtime that rolls out by itself (`capabilities.rollout: "orchestrator"`, Swarm):
 * the first deploy `run()`s the app and waits until it answers; later deploys, restarts and env
 * changes `replace()` it with a start-first update that the runtime gates on the health check and
 * rolls back on failure, while its progress goes to the run's log. When the runtime gives a new
 * address for the new version (a task's own address), the `/app/` route moves to it as soon as the
 * runtime reports it, before the old one is gone. A rollback fails with `502 app_unhealthy` and
 * the same start facts a container that did not come up gives, so the diagnosis reads the same.
 * A cancelled deploy cancels the rollout: the runtime rolls back, and once the old version serves
 * again the route and the record point at it and the run ends cancelled, as on one engine.
 */
@injectable()
export class OrchestratedApps {
  private readonly settings: HostingSettings;

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(AppRoutes) private readonly routes: AppRoutes,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /** The orchestrating runtime, or null on a runtime core rolls out on (one Docker Engine). */
  get runtime(): PortsContainerRuntime | null {
    return this.availability.on ? asOrchestrated(this.availability.runtime()) : null;
  }

  /** Where an orchestrated app answers now; null on another runtime, or when it does not run. */
  async addressOf(id: string): Promise<AppAddress | null> {
    return (await this.runtime?.apps.address(id)) ?? null;
  }

  /** Runs the app, or rolls the running one over to `launch.image`; answers the app as the deployment keeps it. */
  async launch(siteId: string, record: DeploymentRecord, launch: OrchestratedLaunch): Promise<AppContainer> {
    const runtime = this.runtime!;
    if (launch.keepAlive) {
      throw new RepositeError(503, `A bare box is not available on this runtime (${runtime.name}): it has no health gate for a box without a web server.`, "terminal_unavailable");
    }
    // A restart or env change runs the image the app runs now: its reference was saved with it (a
    // server started since knows no reference for the tag, which is no image on the other nodes).
    const same = launch.current?.image === launch.image ? launch.current.image_ref : undefined;
    const reference = same ?? runtime.imageOf(launch.image).reference;
    const existing = launch.current ? await runtime.apps.inspect(launch.current.id) : null;
    let id: string;
    if (existing && launch.current) {
      if (!existing.wanted) {
        // A stopped app runs again first; the rollout below gives it the env as it is now.
        launch.log?.("Starting the app again …");
        await runtime.apps.start(launch.current.id);
      }
      id = await this.replace(siteId, record, launch.current, reference, launch);
    } else id = await this.runNew(siteId, record, reference, launch);
    const address = await runtime.apps.address(id);
    if (!address) throw new AppStartFailure("The app stopped right after its rollout.", await this.facts(id, record, launch, "exited"));
    launch.log?.(`The app answers at ${address.host}:${address.port}${address.network ? ` on ${address.network}` : ""}.`);
    return {
      id,
      name: containerName(siteId, "app"),
      image: launch.image,
      image_ref: reference,
      host: address.host,
      port: address.port,
      network: address.network,
      keep_alive: false,
      memory_mb: launch.memoryMb,
    };
  }

  /** A start-first update to `reference` (and the env as it is now); the route follows the new version's address. */
  private async replace(siteId: string, record: DeploymentRecord, current: AppContainer, reference: string, launch: OrchestratedLaunch): Promise<string> {
    const { apps } = this.runtime!;
    launch.log?.(`Rolling the app over to the new version (${apps.provider}: start first, rolled back if it never becomes healthy) …`);
    let following = true;
    const follow = this.followAddress(siteId, current, () => following);
    const result = await apps
      .replace!(current.id, { image: reference, env: { ...launch.env, PORT: String(record.setup.port) } }, {
        timeoutMs: this.settings.healthTimeoutMs * 3,
        onProgress: (line) => launch.log?.(line),
        ...(launch.signal ? { signal: launch.signal } : {}),
      })
      .finally(() => (following = false));
    await follow;
    if (result.outcome === "cancelled") {
      await this.backToPrevious(siteId, current);
      launch.log?.(`${apps.provider} rolled back to the previous version, which serves again (${result.message}).`);
      // The pipeline sees its signal aborted and ends the run as every cancelled run ends.
      throw launch.signal?.reason ?? new Error("The rollout was cancelled.");
    }
    if (result.outcome === "rolled_back") {
      // The old version never stopped serving; the route goes back to it if it had moved.
      await this.backToPrevious(siteId, current);
      const facts = await this.facts(current.id, record, launch, "timed_out");
      throw new AppStartFailure(`The new version never became healthy, so ${apps.provider} rolled back to the previous one, which keeps serving (${result.message}).`, facts);
    }
    launch.log?.(`Rolled over: ${result.message}.`);
    return current.id;
  }

  /**
   * After a rollback, the route and the saved app point where the previous version answers now: a
   * rollback that came after Swarm had stopped the old task (a cancel late in the update) runs it
   * in a new task, at a new address where the runtime's addresses are tasks' own.
   */
  private async backToPrevious(siteId: string, current: AppContainer): Promise<void> {
    const address = await this.runtime!.apps.address(current.id).catch(() => null);
    const target = address ? targetOf(address) : { host: current.host, port: current.port, network: current.network ?? null };
    this.routes.set(siteId, { status: "running", target });
    if (target.host === current.host && target.port === current.port) return;
    await this.deployments.update(siteId, (record) => (record.container?.id === current.id ? { ...record, container: { ...record.container, ...target } } : record));
  }

  /**
   * While a rollout runs, moves the `/app/` route to the address the runtime gives as soon as it
   * changes (a runtime whose address is a task's own reports the new task once it is healthy).
   */
  private async followAddress(siteId: string, current: AppContainer, going: () => boolean): Promise<void> {
    const { apps } = this.runtime!;
    let last = `${current.host}:${current.port}`;
    while (going()) {
      const address = await apps.address(current.id).catch(() => null);
      if (address && going() && `${address.host}:${address.port}` !== last) {
        last = `${address.host}:${address.port}`;
        this.routes.set(siteId, { status: "running", target: targetOf(address) });
      }
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_MS));
    }
  }

  /** The first run: the app's own service on its own network, answered once the runtime counts it healthy and it answers. */
  private async runNew(siteId: string, record: DeploymentRecord, reference: string, launch: OrchestratedLaunch): Promise<string> {
    const { apps } = this.runtime!;
    const { setup } = record;
    const spec: AppSpec = {
      name: containerName(siteId, "app"),
      image: reference,
      labels: launch.labels,
      env: { ...launch.env, PORT: String(setup.port) },
      port: setup.port,
      memoryMb: launch.memoryMb,
      cpus: FREE_TIER.cpus,
      pidsLimit: FREE_TIER.pidsLimit,
      healthPath: setup.health_path,
      ...(setup.volume_path ? { volume: { name: volumeName(siteId), path: setup.volume_path, limitMb: launch.diskMb } } : {}),
      network: networkName(siteId),
    };
    // A service left by an earlier attempt (a data reset, a run cut short) would hold the name.
    for (const left of await apps.list(launch.labels)) if (left.name === spec.name) await apps.remove(left.id);
    const handle = await apps.run(spec);
    launch.log?.(`Started on ${apps.provider}; waiting until it is healthy and answers ${setup.health_path} …`);
    const failure = await this.untilHealthy(handle.id, setup.health_path, launch.signal);
    if (failure) {
      const facts = await this.facts(handle.id, record, launch, failure.outcome);
      await apps.remove(handle.id).catch(() => undefined);
      throw new AppStartFailure(failure.reason, { ...facts, lastStatus: failure.lastStatus, lastError: failure.lastError });
    }
    return handle.id;
  }

  /**
   * Null once the runtime says the app runs (the orchestrator's own health gate) and, where this
   * machine reaches it, it answers its health path; else why not, at the health timeout or once
   * it keeps ending (the orchestrator restarts it a few times first).
   */
  private async untilHealthy(id: string, healthPath: string, signal?: AbortSignal): Promise<{ reason: string; outcome: StartFacts["outcome"]; lastStatus: number | null; lastError: string | null } | null> {
    const { apps } = this.runtime!;
    const deadline = Date.now() + this.settings.healthTimeoutMs;
    let lastStatus: number | null = null;
    let lastError: string | null = null;
    let endedSince: number | null = null;
    for (;;) {
      if (signal?.aborted) return { reason: "The run was stopped.", outcome: "timed_out", lastStatus, lastError };
      const state = await apps.inspect(id);
      const address = state?.running ? await apps.address(id) : null;
      if (address) {
        if (address.network) return null;
        const answer = await probe(`http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}${healthPath}`);
        if (typeof answer === "number" && isHealthyStatus(answer)) return null;
        if (typeof answer === "number") lastStatus = answer;
        else lastError = answer;
      }
      const ended = state && !state.running && state.exitCode !== null;
      endedSince = ended ? (endedSince ?? Date.now()) : null;
      // Ended and not started again for a while: the orchestrator gave up restarting it.
      if (endedSince !== null && Date.now() - endedSince > Math.max(10_000, this.settings.healthIntervalMs * 4)) {
        const how = state!.oomKilled ? "was killed for using more memory than its limit" : `exited with code ${state!.exitCode}`;
        return { reason: `The app ${how} before it became healthy.`, outcome: "exited", lastStatus, lastError };
      }
      if (Date.now() > deadline) {
        return { reason: `The app did not become healthy on ${healthPath} within ${Math.round(this.settings.healthTimeoutMs / 1000)} s.`, outcome: state?.running ? "timed_out" : "exited", lastStatus, lastError };
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, this.settings.healthIntervalMs)));
    }
  }

  /** What the diagnosis reads of an app that did not come up: its state (exit, OOM) and last output. */
  private async facts(id: string, record: DeploymentRecord, launch: OrchestratedLaunch, outcome: StartFacts["outcome"]): Promise<StartFacts> {
    const { apps } = this.runtime!;
    const [state, output] = await Promise.all([apps.inspect(id).catch(() => null), apps.logs(id, OUTPUT_LINES).catch(() => [])]);
    const { setup } = record;
    return {
      outcome: state?.oomKilled ? "exited" : outcome,
      state: state ? containerStateOf(state) : null,
      afterAnswer: false,
      lastStatus: null,
      lastError: null,
      listening: null,
      output,
      port: setup.port,
      healthPath: setup.health_path,
      timeoutMs: this.settings.healthTimeoutMs,
      memoryMb: launch.memoryMb,
      keepAlive: false,
    };
  }
}

/** A route target from where the runtime says the app answers. */
export const targetOf = (address: AppAddress) => ({ host: address.host, port: address.port, network: address.network });

function containerStateOf(state: AppState): ContainerState {
  return { id: state.id, running: state.running, exitCode: state.exitCode, oomKilled: state.oomKilled, startedAt: state.startedAt, finishedAt: state.finishedAt, hostPort: null };
}

/** One GET from this machine: the status, or why there was none. */
async function probe(url: string): Promise<number | string> {
  try {
    const answer = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(2_000), headers: { "user-agent": "reposite-health-check" } });
    await answer.body?.cancel();
    return answer.status;
  } catch (error) {
    return (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
  }
}
