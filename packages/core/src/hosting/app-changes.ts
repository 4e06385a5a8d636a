import type { AppOperationView } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { conflict, RepositeError } from "../errors.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import { formatTimestamp } from "../util/timestamps.js";
import { AppContainers } from "./app-containers.js";
import { AppDisk } from "./app-disk.js";
import { appLabels, volumeName } from "./app-names.js";
import type { AppContainer, AppOperationRecord, DeploymentRecord } from "./deployment-record.js";
import { DeploymentStore } from "./deployment-store.js";
import { maskDiagnosis } from "./diagnosis/diagnose.js";
import type { Diagnosis } from "./diagnosis/diagnosis.js";
import { hideHostPaths } from "./diagnosis/host-paths.js";
import { diagnoseStartFailure } from "./diagnosis/start-failure.js";
import { AppStartFailure } from "./diagnosis/start-facts.js";
import { HostingAvailability } from "./hosting-availability.js";
import { DEFAULT_HOSTING_SETTINGS, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { createSecretMasker } from "./secret-masker.js";

export type AppOperationKind = AppOperationView["kind"];

/** The sites with a change under way, durable: a restarted server finds the ones a `kill -9` cut short. */
const PENDING_KEY = "app-operations-pending";

/**
 * Changes of an app's container outside a deploy, made safe against a server that stops in the
 * middle: an env change's restart and a data reset. Each is first written on the deployment
 * (`under_way`) and in a durable list, then carried out under the app's lock, then marked `done`
 * or `failed`. A server that starts again finishes every change still under way (`resume`), so an
 * app whose data reset was cut short serves again, clean, without its owner acting.
 */
@injectable()
export class AppChanges {
  private readonly settings: HostingSettings;
  /** Changes carried out in the background (an env change answers before its restart). */
  private readonly background = new Set<Promise<void>>();

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppDisk) private readonly disk: AppDisk,
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /**
   * Records `kind` and carries it out now; the caller holds the app's lock. A failure is recorded
   * (`failed`, with a reason and a diagnosis) and thrown.
   */
  async carryOut(siteId: string, kind: AppOperationKind): Promise<void> {
    const operation = await this.record(siteId, kind);
    if (operation) await this.execute(siteId, operation, false);
  }

  /** Records `kind` and carries it out in the background, under the app's lock; the deployment read shows how it went. */
  async begin(siteId: string, kind: AppOperationKind): Promise<void> {
    const operation = await this.record(siteId, kind);
    if (operation) this.inBackground(siteId, operation, false);
  }

  /** At start: every change a stopped server left under way is finished, in the background. Answers how many. */
  async resume(): Promise<number> {
    let resumed = 0;
    for (const siteId of await this.pending()) {
      const operation = (await this.deployments.get(siteId))?.operation ?? null;
      if (operation?.status !== "under_way") {
        await this.unlist(siteId);
        continue;
      }
      this.inBackground(siteId, operation, true);
      resumed += 1;
    }
    return resumed;
  }

  /** Resolves once every change carried out in the background has ended. */
  async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  private inBackground(siteId: string, operation: AppOperationRecord, resumed: boolean): void {
    const work = this.containers
      .withAppLock(siteId, () => this.execute(siteId, operation, resumed))
      // Recorded on the deployment already; a server stopping meanwhile finishes it at its next start.
      .catch((error: unknown) => {
        if (!RepositeError.isInstance(error)) console.error(`[reposite] ${operation.kind} of app ${siteId} failed:`, error);
      });
    this.background.add(work);
    void work.finally(() => this.background.delete(work));
  }

  /** Writes `kind` on the deployment as `under_way`, listed as pending in the same step; null for a project without an app. */
  private record(siteId: string, kind: AppOperationKind): Promise<AppOperationRecord | null> {
    return this.locks.withLock(PENDING_KEY, async () => {
      await this.storage.setItem(PENDING_KEY, [...new Set([...(await this.pending()), siteId])]);
      let operation: AppOperationRecord | null = null;
      await this.deployments.update(siteId, (deployment) => {
        const now = this.now();
        operation = { id: this.ids.newId("op"), kind, status: "under_way", started_at: now, finished_at: null, reason: null, diagnosis: null, replaces: deployment.container?.id ?? null };
        return { ...deployment, operation, updated_at: now };
      });
      return operation;
    });
  }

  /** Under the app's lock: carries `operation` out unless a later change superseded it, and records how it ended. */
  private async execute(siteId: string, operation: AppOperationRecord, resumed: boolean): Promise<void> {
    const deployment = await this.deployments.get(siteId);
    if (deployment?.operation?.id !== operation.id) return this.unlist(siteId);
    let mask = (text: string) => text;
    try {
      mask = createSecretMasker(Object.values(await this.containers.openEnv(siteId, deployment!)));
      const { container } = deployment!;
      if (!container) throw conflict("The app has not been deployed yet: deploy it first (POST …/deployment/deploy).", "not_deployed");
      // Cut short after traffic had switched to the new container: it is done.
      const switched = resumed && container.id !== operation.replaces && deployment!.status === "running";
      if (!switched && operation.kind === "reset_data") await this.emptyVolume(siteId, deployment!, container);
      // A stopped app takes its new env when it starts.
      if (!switched && operation.kind === "env_restart" && deployment!.status === "running") await this.containers.relaunch(siteId, deployment!, container);
      await this.end(siteId, operation.id, { status: "done", reason: null, diagnosis: null });
    } catch (error) {
      const reason = hideHostPaths(mask(error instanceof Error ? error.message : String(error)));
      await this.end(siteId, operation.id, { status: "failed", reason, diagnosis: diagnosisOf(error, mask, reason) });
      throw error;
    }
  }

  /** Every container of the app goes, then its volume; a new one starts from the same image, with an empty volume. */
  private async emptyVolume(siteId: string, deployment: DeploymentRecord, current: AppContainer): Promise<void> {
    const runtime = this.availability.runtime();
    // The proxy shows the app stopped while its data goes, instead of failing requests.
    await this.containers.stop(siteId);
    // A volume is removed only once no container (running or not) mounts it.
    const ids = new Set([current.id, ...(await runtime.listContainers(appLabels(siteId, this.settings.labels))).map((each) => each.id)]);
    for (const id of ids) await runtime.removeContainer(id);
    await runtime.removeVolume(volumeName(siteId));
    this.disk.forget(siteId);
    await this.containers.relaunch(siteId, deployment, current);
    await this.disk.check(siteId);
  }

  private async end(siteId: string, id: string, outcome: Pick<AppOperationRecord, "status" | "reason" | "diagnosis">): Promise<void> {
    await this.deployments.update(siteId, (deployment) => {
      const operation = deployment.operation;
      if (operation?.id !== id) return deployment;
      return { ...deployment, operation: { ...operation, ...outcome, finished_at: this.now() } };
    });
    await this.unlist(siteId);
  }

  /** Takes the site off the pending list unless a later change of it is under way. */
  private unlist(siteId: string): Promise<void> {
    return this.locks.withLock(PENDING_KEY, async () => {
      if ((await this.deployments.get(siteId))?.operation?.status === "under_way") return;
      await this.storage.setItem(PENDING_KEY, (await this.pending()).filter((each) => each !== siteId));
    });
  }

  private async pending(): Promise<string[]> {
    const list = await this.storage.getItem<string[]>(PENDING_KEY);
    return Array.isArray(list) ? list : [];
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}

/** A failed change explained as a failed start is (what was seen of the new container), else in its own words. */
function diagnosisOf(error: unknown, mask: (text: string) => string, reason: string): Diagnosis {
  const facts = AppStartFailure.facts(error);
  if (facts) return maskDiagnosis(diagnoseStartFailure(facts, { dockerfile: null, tree: null }), mask);
  return { kind: "other", title: "The app could not be started again", detail: reason, fix: "Start the app (POST …/deployment/start); if it fails the same way, the server's operator needs to look at it." };
}
