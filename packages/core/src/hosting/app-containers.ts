import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import type { ContainerRuntime } from "../ports/container-runtime.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { AppLimits } from "../billing/app-limits.js";
import { SecretBox } from "../util/secret-box.js";
import { formatTimestamp } from "../util/timestamps.js";
import { appLabels, containerName, networkName, volumeName, LABEL_SITE, LABEL_ROLE } from "./app-names.js";
import { AppRouteSharing } from "./app-route-sharing.js";
import { AppRoutes, type AppRoute } from "./app-routes.js";
import { envContext, type AppContainer, type DeploymentRecord } from "./deployment-record.js";
import { DeploymentStore } from "./deployment-store.js";
import { LISTENING_COMMAND, parseListening, type ListeningSocket } from "./diagnosis/listening.js";
import { AppStartFailure } from "./diagnosis/start-facts.js";
import { SETTLE_MS, waitUntilHealthy, type HealthResult } from "./health-check.js";
import { HostingAvailability } from "./hosting-availability.js";
import { DEFAULT_HOSTING_SETTINGS, FREE_TIER, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { KEEP_ALIVE_COMMAND } from "./image-recipe.js";
import { OrchestratedApps } from "./orchestrated-deploy.js";

/** How a new container is made. */
export interface LaunchOptions {
  /** The image to run (this app's own tag). */
  image: string;
  /** A bare box: kept up by the keep-alive command, healthy once it runs. */
  keepAlive: boolean;
  /** The app's env, opened. */
  env: Record<string, string>;
  /** The run that makes it, for its labels. */
  runId?: string;
  /** Where start-up lines go (a run's log, which masks them). */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** Lines of the app's own output added to a run's log after its health check. */
const START_OUTPUT_LINES = 50;

/**
 * What runs for each app on the container runtime, and the `/app/` proxy's table that follows
 * it: making a container and waiting until it answers, switching traffic to it and retiring the
 * old one, stopping, and removing everything. Callers hold the app's lock (`withAppLock`) around
 * anything that changes which container serves, so a deploy, a restart and a stop never interleave.
 */
@injectable()
export class AppContainers {
  private readonly settings: HostingSettings;
  /** Old containers draining and going after a switch, apart from the run or request that switched. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(AppRoutes) private readonly routes: AppRoutes,
    @inject(SecretBox) private readonly secrets: SecretBox,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(AppLimits) private readonly limits: AppLimits,
    @inject(AppRouteSharing) private readonly sharing: AppRouteSharing,
    @inject(OrchestratedApps) private readonly orchestrated: OrchestratedApps,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  withAppLock<T>(siteId: string, work: () => Promise<T>): Promise<T> {
    return this.locks.withLock(`hosting:${siteId}`, work);
  }

  /** The app's env values, opened. */
  async openEnv(siteId: string, record: Pick<DeploymentRecord, "env">): Promise<Record<string, string>> {
    try {
      const entries = await Promise.all(
        Object.entries(record.env).map(async ([key, sealed]) => [key, await this.secrets.open(sealed, envContext(siteId, key))] as const),
      );
      return Object.fromEntries(entries);
    } catch {
      throw new RepositeError(
        500,
        "The app's stored env values cannot be opened with this server's secret key (did REPOSITE_SECRET_KEY change?). Set them again with PUT …/deployment/env.",
        "secret_key_mismatch",
      );
    }
  }

  /**
   * Makes and starts a container from `options.image` with the app's setup as it is now (port,
   * health path, volume), the memory the app has paid for then (`AppLimits`: the free tier's
   * 512 MB without a purchase, so a memory purchase takes effect with the next container), the
   * free tier's CPU and process limits, its env and `PORT`, on the app's own network;
   * resolves once it answers its health path from the host. A container that does not come up is
   * removed and the call fails with `502 app_unhealthy` (`exit_oom` when it ran out of memory).
   */
  async launch(siteId: string, record: DeploymentRecord, options: LaunchOptions): Promise<AppContainer> {
    const runtime = this.availability.runtime();
    const { setup } = record;
    const name = containerName(siteId, options.runId ?? this.ids.newId("ctr"));
    const memoryMb = await this.limits.memoryMb(siteId);
    // The volume is held to the app's whole disk limit where the runtime can (writes past it fail).
    const diskMb = setup.volume_path ? await this.limits.diskMb(siteId) : 0;
    if (this.orchestrated.runtime) {
      // The runtime rolls out by itself (Swarm): one app, run once and replaced after (orchestrated-deploy.ts).
      const labels = appLabels(siteId, this.settings.labels);
      return this.orchestrated.launch(siteId, record, { ...options, labels, memoryMb, diskMb, current: record.container });
    }
    const handle = await runtime.runContainer({
      name,
      image: options.image,
      labels: appLabels(siteId, this.settings.labels, options.runId),
      env: { ...options.env, PORT: String(setup.port) },
      // A bare box is worked in through a terminal: its root filesystem stays writable (and measured).
      ...(options.keepAlive ? { command: KEEP_ALIVE_COMMAND, writableRoot: true } : {}),
      port: setup.port,
      memoryMb,
      cpus: FREE_TIER.cpus,
      pidsLimit: FREE_TIER.pidsLimit,
      ...(setup.volume_path ? { volume: { name: volumeName(siteId), path: setup.volume_path, limitMb: diskMb } } : {}),
      network: networkName(siteId),
    });
    options.log?.(options.keepAlive ? "Container started; checking that it stays up …" : `Container started; waiting for it to answer ${setup.health_path} …`);
    let result: HealthResult;
    try {
      result = options.keepAlive
        ? await this.staysUp(handle.id, options.signal)
        : await waitUntilHealthy({
            url: `http://${hostForUrl(handle.host)}:${handle.hostPort}${setup.health_path}`,
            timeoutMs: this.settings.healthTimeoutMs,
            intervalMs: this.settings.healthIntervalMs,
            signal: options.signal,
            inspect: () => runtime.inspectContainer(handle.id),
          });
    } catch (error) {
      await runtime.removeContainer(handle.id).catch(() => undefined);
      throw error;
    }
    if (!result.healthy) {
      // Look inside while it still runs: what it listens on tells "another port" from "127.0.0.1 only".
      const listening = result.state?.running ? await this.listeningInside(handle.id) : null;
      const output = await this.startOutput(handle.id, options.log);
      await runtime.removeContainer(handle.id).catch(() => undefined);
      throw new AppStartFailure(result.reason, {
        outcome: result.state?.running ? "timed_out" : "exited",
        state: result.state,
        afterAnswer: false,
        lastStatus: result.lastStatus ?? null,
        lastError: result.lastError ?? null,
        listening,
        output,
        port: setup.port,
        healthPath: setup.health_path,
        timeoutMs: this.settings.healthTimeoutMs,
        memoryMb,
        keepAlive: options.keepAlive,
      });
    }
    // Its output goes to the log after the switch (`startOutput`): reading it here would hold traffic back.
    options.log?.(options.keepAlive ? "The box is up." : `The app answered ${setup.health_path} with ${result.status}.`);
    return { id: handle.id, name, image: options.image, host: handle.host, port: handle.hostPort, keep_alive: options.keepAlive, memory_mb: memoryMb };
  }

  /**
   * Sends the app's traffic to `next` (just launched: it answered its health path once) and saves
   * it as the app's container (`change` adds the caller's fields). `next` must still run
   * `SETTLE_MS` later; when it does not, the deployment is put back as it was (traffic goes back to
   * the old container, untouched meanwhile), `next` is removed and the call fails with `502
   * app_unhealthy`. Then, in the background, the old container finishes its requests under way (up
   * to `drainTimeoutMs`), stops and goes, with its image when `next` runs another: a deploy ends,
   * and a restart answers, once traffic has switched, not after the drain (`retired()` waits for
   * it). Answers the saved deployment, or null when it was removed meanwhile (then `next` goes
   * instead).
   */
  async switchTo(siteId: string, next: AppContainer, change: (record: DeploymentRecord) => DeploymentRecord = (record) => record): Promise<DeploymentRecord | null> {
    const runtime = this.availability.runtime();
    let before: DeploymentRecord | null = null;
    const updated = await this.deployments.update(siteId, (deployment) => {
      before = deployment;
      return change({ ...deployment, container: next, status: "running", last_exit_oom: false, updated_at: this.now() });
    });
    if (!updated || !before) {
      await runtime.removeContainer(next.id).catch(() => undefined);
      return null;
    }
    this.publish(siteId, updated);
    // A proxy in front (the nginx edge) sends to `next` too before the switch counts as made.
    await this.routes.applied(siteId);
    const previous: DeploymentRecord = before;
    // A bare box was watched for longer before it was launched.
    const failure = next.keep_alive ? null : await this.settles(next, updated.setup);
    if (failure) {
      await this.switchBack(siteId, next, previous);
      throw failure;
    }
    const retired = previous.container;
    if (retired && retired.id !== next.id) {
      const retiring = this.retire(retired, next.image);
      this.retiring.add(retiring);
      void retiring.finally(() => this.retiring.delete(retiring));
    } else if (retired && retired.image !== next.image) {
      // The same app rolled over to a new image (an orchestrating runtime): the old image goes.
      const removing = removeOldImage(runtime, retired.image).catch((error: unknown) => console.error(`[reposite] removing image ${retired.image} failed:`, error));
      this.retiring.add(removing);
      void removing.finally(() => this.retiring.delete(removing));
    }
    return updated;
  }

  /**
   * A new container from the app's current image, with its setup and env as they are now, takes
   * over once it answers (start, restart, an env change, a data reset). When it does not come up,
   * a running app keeps serving and any other shows `failed` (`last_exit_oom` when it ran out of
   * memory), and the error goes on. Callers hold the app's lock.
   */
  async relaunch(siteId: string, deployment: DeploymentRecord, container: AppContainer): Promise<void> {
    const env = await this.openEnv(siteId, deployment);
    try {
      const next = await this.launch(siteId, deployment, { image: container.image, keepAlive: container.keep_alive, env });
      await this.switchTo(siteId, next, (record) => ({ ...record, stopped_reason: null }));
    } catch (error) {
      const oom = RepositeError.isInstance(error) && error.details?.exit_oom === true;
      const after = await this.deployments.update(siteId, (record) => ({
        ...record,
        status: record.status === "running" ? "running" : "failed",
        last_exit_oom: oom || record.last_exit_oom,
        stopped_reason: null,
        updated_at: this.now(),
      }));
      if (after) this.publish(siteId, after);
      throw error;
    }
  }

  /** The last lines of a new container's output, also written to `log` under a heading. */
  async startOutput(id: string, log?: (line: string) => void): Promise<string[]> {
    const output = await this.availability.runtime().logs(id, START_OUTPUT_LINES).catch(() => []);
    if (output.length > 0) {
      log?.(`The app's output (last ${START_OUTPUT_LINES} lines at most):`);
      for (const line of output) log?.(line);
    }
    return output;
  }

  /** Null when `next` still runs `SETTLE_MS` after its first answer, else why it is not up. */
  private async settles(next: AppContainer, setup: DeploymentRecord["setup"]): Promise<AppStartFailure | null> {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const runtime = this.availability.runtime();
    const state = await runtime.inspectContainer(next.id);
    if (state?.running) return null;
    const how = state?.oomKilled ? "was killed for using more memory than its limit" : `exited${state?.exitCode != null ? ` with code ${state.exitCode}` : ""}`;
    const output = await this.startOutput(next.id);
    return new AppStartFailure(`The app's container ${how} right after it answered.`, {
      outcome: "exited",
      state,
      afterAnswer: true,
      lastStatus: null,
      lastError: null,
      listening: null,
      output,
      port: setup.port,
      healthPath: setup.health_path,
      timeoutMs: this.settings.healthTimeoutMs,
      memoryMb: next.memory_mb ?? FREE_TIER.memoryMb,
      keepAlive: next.keep_alive,
    });
  }

  /** The sockets listening inside a running container, or null when the runtime cannot look (or the image has no `cat`). */
  private async listeningInside(id: string): Promise<ListeningSocket[] | null> {
    const runtime = this.availability.runtime();
    if (!runtime.capabilities.exec || !runtime.exec) return null;
    try {
      return parseListening((await runtime.exec(id, LISTENING_COMMAND, { timeoutMs: 5_000 })).output);
    } catch {
      return null;
    }
  }

  /** Puts back the container, state and run the deployment had before the switch to `next`, and removes `next`. */
  private async switchBack(siteId: string, next: AppContainer, previous: DeploymentRecord): Promise<void> {
    const restored = await this.deployments.update(siteId, (record) =>
      record.container?.id === next.id
        ? {
            ...record,
            container: previous.container,
            status: previous.status,
            run: previous.run,
            last_exit_oom: previous.last_exit_oom,
            updated_at: this.now(),
          }
        : record,
    );
    if (restored) this.publish(siteId, restored);
    await this.availability.runtime().removeContainer(next.id).catch(() => undefined);
  }

  /** Resolves once every old container being retired now is gone (the server waits for them as it stops). */
  async retired(): Promise<void> {
    while (this.retiring.size > 0) await Promise.all([...this.retiring]);
  }

  /** Stops the app's container (kept, so its output can still be read) and saves `stopped`. */
  async stop(siteId: string): Promise<DeploymentRecord | null> {
    const runtime = this.availability.runtime();
    const record = await this.deployments.get(siteId);
    const container = record?.container;
    if (container) {
      // Visitors get the stopped page at once, also from a proxy in front (the nginx edge's reload), not its 502.
      this.routes.set(siteId, { status: "stopped", target: null });
      await this.routes.applied(siteId);
      try {
        await runtime.stopContainer(container.id, this.settings.stopGraceSeconds);
      } catch (error) {
        this.routes.set(siteId, routeOf(record));
        throw error;
      }
    }
    const updated = await this.deployments.update(siteId, (record) => (container ? { ...record, status: "stopped", updated_at: this.now() } : record));
    if (updated) this.publish(siteId, updated);
    return updated;
  }

  /**
   * Removes every container of the app (the one saved and any left over), the given images, its
   * data volume, and its entry in the `/app/` table.
   */
  async removeAll(siteId: string, images: Iterable<string>): Promise<void> {
    const runtime = this.availability.runtime();
    this.routes.delete(siteId);
    this.sharing.announce(siteId, true);
    // A proxy in front lets go of the app before its containers go (the nginx edge's reload), so no visitor gets its 502.
    await this.routes.applied(siteId);
    const containers = await runtime.listContainers({ [LABEL_ROLE]: "app", [LABEL_SITE]: siteId, ...this.settings.labels });
    const saved = (await this.deployments.get(siteId))?.container;
    const ids = new Set([...containers.map((each) => each.id), ...(saved ? [saved.id] : [])]);
    for (const id of ids) await runtime.removeContainer(id);
    for (const image of new Set(images)) await runtime.removeImage(image);
    await runtime.removeVolume(volumeName(siteId));
    await runtime.removeNetwork(networkName(siteId));
    // What the app's builds keep for the next one (BuildKit's cache records) goes with it.
    await runtime.removeBuildCache?.(appLabels(siteId, this.settings.labels));
  }

  /** Puts the app's state in the `/app/` proxy's table, here and (through EVENTS) on every replica. */
  publish(siteId: string, record: DeploymentRecord): void {
    this.routes.set(siteId, routeOf(record));
    this.sharing.announce(siteId);
  }

  /** Drains, stops and removes a container traffic moved away from; failures are logged, the switch stands. */
  private async retire(old: AppContainer, currentImage: string): Promise<void> {
    const runtime = this.availability.runtime();
    try {
      await this.routes.drained({ host: old.host, port: old.port }, this.settings.drainTimeoutMs);
      await runtime.stopContainer(old.id, this.settings.stopGraceSeconds);
      await runtime.removeContainer(old.id);
      if (old.image !== currentImage) await runtime.removeImage(old.image);
    } catch (error) {
      console.error(`[reposite] retiring container ${old.name} failed:`, error);
    }
  }

  /** A bare box is healthy when it is still running a moment after it started. */
  private async staysUp(id: string, signal?: AbortSignal): Promise<HealthResult> {
    const runtime = this.availability.runtime();
    await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, this.settings.healthIntervalMs * 2)));
    if (signal?.aborted) return { healthy: false, reason: "The run was stopped.", state: null };
    const state = await runtime.inspectContainer(id);
    if (state?.running) return { healthy: true, status: 0 };
    return { healthy: false, reason: `The box stopped right after it started${state?.exitCode != null ? ` (exit code ${state.exitCode})` : ""}.`, state };
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}

/** What the proxy should know of an app: its target while a container serves, else its state. */
export function routeOf(record: DeploymentRecord): AppRoute {
  if (record.status === "running" && record.container) {
    return { status: "running", target: { host: record.container.host, port: record.container.port, ...(record.container.network ? { network: record.container.network } : {}) } };
  }
  const run = record.run?.status;
  return { status: run === "building" || run === "starting" ? run : record.status, target: null };
}

/** An orchestrator stops the old task a moment after its update completed: its image is free only then. */
async function removeOldImage(runtime: ContainerRuntime, image: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runtime.removeImage(image);
    } catch (error) {
      if (attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** An IPv6 literal needs brackets in a URL. */
const hostForUrl = (host: string) => (host.includes(":") ? `[${host}]` : host);
