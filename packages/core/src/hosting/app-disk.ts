import { inject, injectable } from "tsyringe";
import { APP_LIMITS_CHANNEL, type AppLimitsChanged } from "../billing/app-limit-events.js";
import { AppLimits } from "../billing/app-limits.js";
import { conflict } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { EVENTS, type EventBus } from "../ports/events.js";
import { Leases } from "../util/leases.js";
import { formatTimestamp } from "../util/timestamps.js";
import { AppContainers } from "./app-containers.js";
import { allAppsLabels, LABEL_SITE, volumeName } from "./app-names.js";
import { DeployRunStore } from "./deploy-run-store.js";
import { DeploymentStore } from "./deployment-store.js";
import { storageFullDiagnosis } from "./diagnosis/storage-full.js";
import { measureDisk, volumeFillsDisk, type DiskUsage } from "./disk-usage.js";
import { HostingAvailability } from "./hosting-availability.js";
import { DEFAULT_HOSTING_SETTINGS, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { ReplicaIdentity } from "../util/replica-identity.js";

/** The lease of the periodic disk checks: one replica measures every app for all. */
const DISK_CHECKS_LEASE = "disk-checks";

/** A measurement kept in memory, for the container it measured. */
interface Kept {
  containerId: string;
  usage: DiskUsage;
  at: number;
}

/**
 * The disk each app may use (image, writable layer and data volume together: `diskLimitMb`, or
 * the disk paid for that app, from the moment the purchase counts). Where the runtime can, writes
 * fail past the limit at once (`ContainerRuntime.diskLimits`: the volume is a filesystem of the
 * limit's size, the root filesystem read-only); every runtime is also measured, for what a
 * mechanism does not cover (the image, a writable root): after every deploy and every
 * `diskCheckIntervalMs` (running apps only, one check at a time). An app found over its limit is
 * stopped with `stopped_reason` saved on its deployment. The last measurement of each app is kept
 * in memory for deploys (`409 storage_full`) and metrics; callers at the same moment share one
 * measurement.
 */
@injectable()
export class AppDisk {
  private readonly settings: HostingSettings;
  private readonly kept = new Map<string, Kept>();
  /** Measurements under way, by app: a second caller waits for the first instead of asking the engine again. */
  private readonly measuring = new Map<string, Promise<{ usage: DiskUsage; stopped: boolean; image: string } | null>>();
  /** The limit each app's volume was last held to. */
  private readonly applied = new Map<string, number>();
  private watching = false;
  private stopListening: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private closed = false;

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(DeployRunStore) private readonly runs: DeployRunStore,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(AppLimits) private readonly limits: AppLimits,
    @inject(EVENTS) private readonly events: EventBus,
    @inject(Leases) private readonly leases: Leases,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /** The disk an app without a disk purchase may use, in MB (the server's `diskLimitMb`). */
  get limitMb(): number {
    return this.settings.diskLimitMb;
  }

  /** The disk this app may use now, in MB: its paid disk, or the server's limit. */
  limitFor(siteId: string): Promise<number> {
    return this.limits.diskMb(siteId);
  }

  /**
   * `409 storage_full` when the app's volume alone fills its disk: what a deploy keeps leaves no
   * room for a new image. From the last measurement of its current container, or one taken now.
   */
  async assertRoom(siteId: string): Promise<void> {
    const usage = await this.usage(siteId, Infinity);
    if (usage && volumeFillsDisk(usage)) {
      throw conflict(
        `The app's disk is full: its data volume holds ${usage.volume_mb} MB of its ${usage.limit_mb} MB, so no new image fits. ` +
          "Empty it (POST …/deployment/reset-data) or give the app more disk, then deploy again.",
        "storage_full",
        { storage: usage },
      );
    }
  }

  /**
   * Measures the app after a deploy went live; when it is over its limit it is stopped and the run
   * that made it live keeps a `storage_full` diagnosis. Never fails the deploy that called it.
   */
  async afterDeploy(siteId: string): Promise<void> {
    try {
      const measured = await this.check(siteId);
      // Over the limit: stopped now, or a moment ago by the periodic check.
      if (!measured?.usage.over) return;
      const deployment = (await this.deployments.get(siteId));
      const runId = deployment?.last_run_id;
      if (!runId) return;
      const diagnosis = storageFullDiagnosis(measured.usage.used_mb, measured.usage.limit_mb);
      await this.runs.modify(siteId, runId, (run) => (run.image === measured.image ? { ...run, diagnosis } : run));
    } catch (error) {
      console.error(`[reposite] measuring the disk of app ${siteId} after its deploy failed:`, error);
    }
  }

  /**
   * The app's disk as last measured for its current container, or measured now when that is older
   * than `maxAgeMs`, missing, or made against another limit (a disk purchase counts at once). Null
   * before the app has a container.
   */
  async usage(siteId: string, maxAgeMs: number): Promise<DiskUsage | null> {
    const deployment = (await this.deployments.get(siteId));
    if (!deployment?.container) return null;
    const kept = this.kept.get(siteId);
    const fresh = kept && kept.containerId === deployment.container.id && this.clock.now().getTime() - kept.at <= maxAgeMs;
    if (fresh && kept.usage.limit_mb === (await this.limitFor(siteId))) return kept.usage;
    try {
      return (await this.check(siteId))?.usage ?? null;
    } catch (error) {
      // A busy or slow engine: the last figures say more than an error would.
      if (kept && kept.containerId === deployment.container.id) return kept.usage;
      throw error;
    }
  }

  /**
   * Applies the app's disk limit now: a purchase (or a lowered limit) resizes its volume at once
   * where the runtime enforces limits at write time, then the app is measured against it (and
   * stopped when over it, as the periodic check does).
   */
  async applyLimit(siteId: string): Promise<DiskUsage | null> {
    this.applied.delete(siteId);
    return (await this.check(siteId))?.usage ?? null;
  }

  /**
   * Measures the app's current container now and keeps the result; a running app over its limit
   * is stopped (`stopped: true`), a running one under it loses an old `stopped_reason`.
   */
  check(siteId: string): Promise<{ usage: DiskUsage; stopped: boolean; image: string } | null> {
    const pending = this.measuring.get(siteId);
    if (pending) return pending;
    const measured = this.measure(siteId).finally(() => this.measuring.delete(siteId));
    this.measuring.set(siteId, measured);
    return measured;
  }

  private async measure(siteId: string): Promise<{ usage: DiskUsage; stopped: boolean; image: string } | null> {
    const runtime = this.availability.runtime();
    const deployment = (await this.deployments.get(siteId));
    const container = deployment?.container;
    if (!deployment || !container) return null;
    const limitMb = await this.limitFor(siteId);
    // An app without a volume_path has no volume to measure (nor to ask the engine about).
    const volume = deployment.setup.volume_path ? volumeName(siteId) : null;
    if (volume && runtime.resizeVolume && this.applied.get(siteId) !== limitMb) {
      await runtime.resizeVolume(volume, limitMb);
      this.applied.set(siteId, limitMb);
    }
    const usage = await measureDisk(runtime, { image: container.image, containerId: container.id, volume }, limitMb, this.now());
    this.kept.set(siteId, { containerId: container.id, usage, at: this.clock.now().getTime() });
    if (deployment.status !== "running") return { usage, stopped: false, image: container.image };
    if (!usage.over) {
      if (deployment.stopped_reason) await this.clearReason(siteId, container.id);
      return { usage, stopped: false, image: container.image };
    }
    const stopped = await this.stopOver(siteId, container.id, usage);
    return { usage, stopped, image: container.image };
  }

  /** Forgets the app's last measurement (its data was reset, or the app removed). */
  forget(siteId: string): void {
    this.kept.delete(siteId);
    this.applied.delete(siteId);
  }

  /**
   * Starts measuring every running app every `diskCheckIntervalMs` (at server start, after
   * recovery), and applies a changed disk purchase (bought, or lowered in the billing portal) the
   * moment billing says so.
   */
  watch(): void {
    if (this.watching || this.closed || !this.availability.on) return;
    this.watching = true;
    this.stopListening = this.events.subscribe(APP_LIMITS_CHANNEL, (event) => {
      const siteId = (event as AppLimitsChanged).site_id;
      this.applyLimit(siteId).catch((error: unknown) => console.error(`[reposite] applying the disk limit of app ${siteId} failed:`, error));
    });
    this.schedule();
  }

  /** Stops the periodic measuring and waits for a check under way. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    this.stopListening = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.checking;
    // Another replica need not wait for the lease to expire.
    if (this.watching) await this.leases.release(DISK_CHECKS_LEASE, this.replica.id).catch(() => undefined);
  }

  /** The next check starts an interval after the last one ended, so two never overlap. */
  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.checking = this.checkRunning().finally(() => {
        this.checking = null;
        if (!this.closed) this.schedule();
      });
    }, this.settings.diskCheckIntervalMs);
    // Measuring never keeps the process alive.
    this.timer.unref();
  }

  /**
   * One pass over the running apps on the engine (found by their labels), one at a time, by one
   * replica of those sharing the storage: the one holding the `disk-checks` lease, which it keeps
   * while it takes its turns (another takes over within two periods of its death).
   */
  private async checkRunning(): Promise<void> {
    const ttlMs = this.settings.diskCheckIntervalMs * 2 + 5_000;
    try {
      await this.leases.asLeader(DISK_CHECKS_LEASE, this.replica.id, ttlMs, () => this.checkEach());
    } catch (error) {
      console.error("[reposite] the periodic disk check failed:", error);
    }
  }

  private async checkEach(): Promise<void> {
    try {
      const listed = await this.availability.runtime().listContainers(allAppsLabels(this.settings.labels));
      const sites = new Set(listed.filter((each) => each.running).map((each) => each.labels[LABEL_SITE]).filter((site): site is string => Boolean(site)));
      for (const siteId of sites) {
        if (this.closed) return;
        await this.check(siteId).catch((error: unknown) => console.error(`[reposite] measuring the disk of app ${siteId} failed:`, error));
      }
    } catch (error) {
      console.error("[reposite] the periodic disk check failed:", error);
    }
  }

  /**
   * Stops the app (under its lock, when the container measured still serves it) and saves why.
   * Answers whether it stopped it.
   */
  private async stopOver(siteId: string, containerId: string, usage: DiskUsage): Promise<boolean> {
    return this.containers.withAppLock(siteId, async () => {
      const current = (await this.deployments.get(siteId));
      if (current?.status !== "running" || current.container?.id !== containerId) return false;
      await this.containers.stop(siteId);
      const reason =
        `Stopped by the service: the app's disk (image ${usage.image_mb} MB, files written in its container ${usage.container_mb} MB, ` +
        `data volume ${usage.volume_mb} MB) reached ${usage.used_mb} MB, over its ${usage.limit_mb} MB. ` +
        "Free some room (POST …/deployment/reset-data empties its volume) or give it more disk, then start it again.";
      await this.setReason(siteId, containerId, reason);
      return true;
    });
  }

  private async clearReason(siteId: string, containerId: string): Promise<void> {
    await this.setReason(siteId, containerId, null);
  }

  private async setReason(siteId: string, containerId: string, reason: string | null): Promise<void> {
    await this.deployments.update(siteId, (deployment) =>
      deployment.container?.id === containerId ? { ...deployment, stopped_reason: reason, updated_at: this.now() } : deployment,
    );
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}
