import { DEFAULT_LOG_LINES, logTailSchema } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { z } from "zod";
import { conflict, unprocessable } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { AppAccess } from "./app-access.js";
import { AppChanges } from "./app-changes.js";
import { AppContainers } from "./app-containers.js";
import { AppDisk } from "./app-disk.js";
import { toMetricsView, type MetricsView } from "./app-metrics.js";
import type { AppContainer, DeploymentRecord, DeploymentView } from "./deployment-record.js";
import { DeploymentStore } from "./deployment-store.js";
import { HostingAvailability } from "./hosting-availability.js";
import { HostingService } from "./hosting-service.js";
import { DEFAULT_HOSTING_SETTINGS, FREE_TIER, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { createSecretMasker } from "./secret-masker.js";

export { MAX_LOG_LINES, DEFAULT_LOG_LINES } from "@reposite/contract";
/** Metrics reuse a disk measurement this recent (measuring takes the engine a moment). */
const STORAGE_FRESH_MS = 5_000;

/**
 * Operating a deployed app: its output (`logs`), what it uses now (`metrics`), and emptying its
 * data volume (`resetData`). Each answers `503 hosting_unavailable` without a runtime, `404` for
 * a project missing or someone else's, `409 not_configured` before the setup and `409
 * not_deployed` before the app had a container.
 */
@injectable()
export class AppOperations {
  private readonly settings: HostingSettings;

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppDisk) private readonly disk: AppDisk,
    @inject(HostingService) private readonly hosting: HostingService,
    @inject(AppAccess) private readonly access: AppAccess,
    @inject(AppChanges) private readonly changes: AppChanges,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /**
   * `GET …/deployment/logs?tail=n`: the last `n` lines (default 200, at most 5000) the app's
   * container wrote, stdout and stderr in order, as text ending in a newline. Its env values are
   * masked (`***`), as in run logs. A stopped app's container is kept, so its output still reads.
   * `422 invalid_request` (field `tail`) when `tail` is not a whole number of at least 1.
   */
  async logs(ownerId: string, siteId: string, tail?: unknown): Promise<string> {
    const runtime = this.availability.runtime();
    const lines = tailOf(tail);
    const { deployment, container } = await this.deployed(ownerId, siteId);
    const output = await runtime.logs(container.id, lines);
    if (output.length === 0) return "";
    const mask = createSecretMasker(Object.values(await this.containers.openEnv(siteId, deployment)));
    return mask(`${output.join("\n")}\n`);
  }

  /** `GET …/deployment/metrics` (see `MetricsView`); the storage part may be measured now. */
  async metrics(ownerId: string, siteId: string): Promise<MetricsView> {
    const runtime = this.availability.runtime();
    const { container } = await this.deployed(ownerId, siteId);
    const storage = await this.disk.usage(siteId, Math.min(STORAGE_FRESH_MS, this.settings.diskCheckIntervalMs));
    if (!storage) throw notDeployed();
    // Read after the disk check, which may have stopped an app over its limit.
    const state = await runtime.inspectContainer(container.id);
    const stats = state?.running && runtime.capabilities.stats && runtime.stats ? await runtime.stats(container.id).catch(() => null) : null;
    // The memory its container was given (paid units apply from the next deploy on).
    return toMetricsView(stats, { cpus: FREE_TIER.cpus, memoryMb: container.memory_mb ?? FREE_TIER.memoryMb }, storage, this.now());
  }

  /**
   * `POST …/deployment/reset-data {confirm: <slug>}`: the app's data volume is emptied and the app
   * starts clean from its current image (its containers go, the volume goes, a new container makes
   * an empty one, and traffic switches once it answers). It starts the app, so it goes through the
   * payment gate (`402`). `422 confirm_mismatch` (field `confirm`) unless `confirm` is the app's
   * slug (missing included); `409 no_volume` when the setup has no `volume_path`. When the new container does not come
   * up the data is gone all the same, the app shows `failed` and the answer is `502 app_unhealthy`. The reset is
   * recorded first (`last_operation`, `AppChanges`): one a stopped server cut short is finished at its next start.
   */
  async resetData(ownerId: string, siteId: string, input: unknown): Promise<DeploymentView> {
    this.availability.runtime();
    const project = await this.access.owned(ownerId, siteId);
    await this.access.assertMayHost(ownerId, siteId);
    const confirm = typeof input === "object" && input !== null ? (input as { confirm?: unknown }).confirm : undefined;
    if (!project.slug || confirm !== project.slug) {
      throw unprocessable(`To empty the app's data, send confirm set to its slug (${project.slug ?? "none yet"}); it cannot be undone.`, "confirm_mismatch", {
        field: "confirm",
      });
    }
    await this.containers.withAppLock(siteId, async () => {
      const deployment = (await this.deployments.get(siteId));
      if (!deployment?.container) throw notDeployed();
      if (!deployment.setup.volume_path) {
        throw conflict("The app has no data volume to empty: its setup has no volume_path.", "no_volume", { field: "volume_path" });
      }
      // Fails before any data goes when the env cannot be opened (the server's key changed).
      await this.containers.openEnv(siteId, deployment);
      // Recorded before anything goes: a server stopped in the middle finishes it at its next start.
      await this.changes.carryOut(siteId, "reset_data");
    });
    return this.hosting.read(ownerId, siteId);
  }

  /** The caller's app (`AppAccess.owned`), which has (or had) a container: `409 not_deployed` before its first deploy. */
  private async deployed(ownerId: string, siteId: string): Promise<{ deployment: DeploymentRecord; container: AppContainer }> {
    const { deployment } = await this.access.owned(ownerId, siteId);
    if (!deployment.container) throw notDeployed();
    return { deployment, container: deployment.container };
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}

const notDeployed = () => conflict("The app has not been deployed yet: deploy it first (POST …/deployment/deploy).", "not_deployed");

const tailInput = z.object({ tail: logTailSchema });

/** `tail` as the query or a caller gives it (the last of several): the contract's rule, `422` (field `tail`) when it is no whole number ≥ 1. */
function tailOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_LOG_LINES;
  return parseInput(tailInput, { tail: String(Array.isArray(value) ? value.at(-1) : value) }).tail;
}
