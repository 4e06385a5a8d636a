import { inject, injectable } from "tsyringe";
import { JobsService } from "../jobs/jobs-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import type { ContainerSummary } from "../ports/container-runtime.js";
import { ProjectStore } from "../projects/project-store.js";
import { formatTimestamp } from "../util/timestamps.js";
import { AppChanges } from "./app-changes.js";
import { AppContainers } from "./app-containers.js";
import { allAppsLabels, imageTag, LABEL_RUN, LABEL_SITE } from "./app-names.js";
import { BuildQueue, type QueueEntry } from "./build-queue.js";
import { isRunUnderWay, SERVER_STOPPED_REASON } from "./deploy-run.js";
import { serverStoppedDiagnosis } from "./diagnosis/diagnose.js";
import { DeployRunStore } from "./deploy-run-store.js";
import { DeploymentStore } from "./deployment-store.js";
import { DeployPipeline } from "./deploy-pipeline.js";
import { HostingAvailability } from "./hosting-availability.js";
import { OrchestratedApps } from "./orchestrated-deploy.js";
import { DEFAULT_HOSTING_SETTINGS, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { ReplicaIdentity } from "../util/replica-identity.js";

/** What `recover()` found. */
export interface RecoveryReport {
  /** Apps running again behind `/app/`. */
  running: number;
  /** Runs the stopped server left under way, now `failed`. */
  interrupted: number;
  /** Queued runs taken up again. */
  queued: number;
}

/**
 * Apps are not children of the server: they keep running while it restarts (or after a `kill -9`).
 * At start the server finds them again by their labels and puts the running ones back in the
 * `/app/` table, removes containers an interrupted run or switch-over left behind, ends runs that
 * were building or starting as `failed` (never stuck), finishes env restarts and data resets left
 * under way (`AppChanges`), and takes queued runs up again.
 */
@injectable()
export class AppRecovery {
  private readonly settings: HostingSettings;
  private watch: NodeJS.Timeout | undefined;
  private adopting: Promise<void> | undefined;

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(DeployRunStore) private readonly runs: DeployRunStore,
    @inject(BuildQueue) private readonly queue: BuildQueue,
    @inject(DeployPipeline) private readonly pipeline: DeployPipeline,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppChanges) private readonly changes: AppChanges,
    @inject(JobsService) private readonly jobs: JobsService,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(ReplicaIdentity) private readonly replica: ReplicaIdentity,
    @inject(OrchestratedApps) private readonly orchestrated: OrchestratedApps,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  async recover(): Promise<RecoveryReport> {
    if (!this.availability.on) return { running: 0, interrupted: 0, queued: 0 };
    await this.replica.start();
    const { interrupted, queued } = await this.takeUp(await this.queue.takeOver());
    const running = await this.findApps();
    // After the containers are sorted out: an env restart or data reset cut short is finished (in the background).
    await this.changes.resume();
    let resumed = 0;
    for (const entry of queued) if (await this.resumeQueued(entry)) resumed += 1;
    await this.queue.resume();
    this.watchReplicas();
    return { running, interrupted, queued: resumed };
  }

  /** Stops watching other replicas and gives this one's lease up. */
  async close(): Promise<void> {
    clearInterval(this.watch);
    this.watch = undefined;
    await this.adopting;
    await this.replica.stop();
  }

  /**
   * Replicas sharing a database: every half lease, the runs of replicas whose lease expired (a
   * replica killed, its machine gone) are taken over by one replica under the queue's lock:
   * under way, they end `failed` with the reason; queued, they go on here.
   */
  private watchReplicas(): void {
    this.watch ??= setInterval(() => {
      this.adopting ??= this.adoptOrphans()
        .catch((error: unknown) => console.error("[reposite] taking over the runs of a stopped replica failed:", error))
        .finally(() => (this.adopting = undefined));
    }, Math.max(50, Math.floor(this.settings.replicaLeaseMs / 2)));
    this.watch.unref?.();
  }

  /** Takes over the runs of replicas whose lease expired; answers how many runs ended or went on. */
  async adoptOrphans(): Promise<void> {
    const dead = new Set<string>();
    for (const replica of await this.queue.otherReplicas()) if (!(await this.replica.isAlive(replica))) dead.add(replica);
    if (dead.size === 0) return;
    const { interrupted, queued } = await this.takeUp(await this.queue.takeOver((entry) => entry.replica !== undefined && dead.has(entry.replica)));
    for (const entry of queued) await this.resumeQueued(entry);
    await this.queue.resume();
    if (interrupted || queued.length) {
      console.log(`[reposite] took over the runs of stopped replica${dead.size === 1 ? "" : "s"} ${[...dead].join(", ")}: ${interrupted} ended failed, ${queued.length} queued here`);
    }
  }

  /** Ends the runs taken over that were under way; answers how many, and the runs to queue here. */
  private async takeUp(taken: { interrupted: QueueEntry[]; queued: QueueEntry[] }): Promise<{ interrupted: number; queued: QueueEntry[] }> {
    const interrupted: QueueEntry[] = [];
    const notBegun: QueueEntry[] = [];
    for (const entry of taken.interrupted) {
      // A run given a slot just before the server stopped may not have begun: it waits again.
      if ((await this.runs.get(entry.site_id, entry.run_id))?.status === "queued") notBegun.push(entry);
      else interrupted.push(entry);
    }
    await this.queue.requeue(notBegun);
    for (const entry of interrupted) await this.endInterrupted(entry);
    return { interrupted: interrupted.length, queued: [...notBegun, ...taken.queued] };
  }

  /**
   * A run that held a build slot when the server stopped. If traffic had already switched to its
   * container it succeeded; otherwise it ends `failed` and its image goes.
   */
  private async endInterrupted(entry: QueueEntry): Promise<void> {
    const runtime = this.availability.runtime();
    const tag = imageTag(entry.site_id, entry.run_id);
    const saved = (await this.deployments.get(entry.site_id))?.container;
    const switched = saved?.image === tag;
    const now = formatTimestamp(this.clock.now());
    const run = await this.runs.get(entry.site_id, entry.run_id);
    if (run?.job_id) await this.jobs.abandonOrphan(run.job_id);
    await this.runs.modify(entry.site_id, entry.run_id, (run) =>
      isRunUnderWay(run.status)
        ? switched
          ? { ...run, status: "done", finished_at: now }
          : { ...run, status: "failed", reason: SERVER_STOPPED_REASON, diagnosis: serverStoppedDiagnosis(), finished_at: now }
        : run,
    );
    if (!switched) {
      // A container the run had started but not switched to (its replica died meanwhile).
      for (const left of await runtime.listContainers({ ...allAppsLabels(this.settings.labels), [LABEL_RUN]: entry.run_id }).catch(() => [])) {
        if (left.id !== saved?.id) await runtime.removeContainer(left.id).catch(() => undefined);
      }
      await runtime.removeImage(tag).catch(() => undefined);
    }
    await this.deployments.update(entry.site_id, (record) =>
      record.run?.run_id === entry.run_id ? { ...record, run: null, status: record.container ? record.status : "failed", updated_at: now } : record,
    );
  }

  /** Every app container of this server, by project: the saved one is routed to again, the rest go. */
  private async findApps(): Promise<number> {
    const runtime = this.availability.runtime();
    const bySite = new Map<string, ContainerSummary[]>();
    for (const summary of await runtime.listContainers(allAppsLabels(this.settings.labels))) {
      const siteId = summary.labels[LABEL_SITE];
      if (siteId) bySite.set(siteId, [...(bySite.get(siteId) ?? []), summary]);
    }
    // Containers of runs another live replica has under way are its to switch to or remove.
    const othersRuns = await this.queue.runsOfOthers();
    let running = 0;
    for (const [siteId, found] of bySite) {
      // Not a project of this server's storage: another server's app on the same engine. Left alone.
      if (!(await this.store.get(siteId))) continue;
      const deployment = await this.deployments.get(siteId);
      const saved = deployment?.container ?? null;
      for (const leftover of found.filter((summary) => summary.id !== saved?.id && !othersRuns.has(summary.labels[LABEL_RUN] ?? ""))) await runtime.removeContainer(leftover.id);
      const current = found.find((summary) => summary.id === saved?.id);
      if (!deployment || !saved) continue;
      const now = formatTimestamp(this.clock.now());
      // An orchestrated app answers where its task runs now (a task's own address changes as tasks are replaced).
      const address = current?.running ? await this.orchestrated.addressOf(saved.id) : null;
      const updated = await this.deployments.update(siteId, (record) => {
        if (!record.container || record.container.id !== saved.id || record.status !== "running") return record;
        if (address) return { ...record, container: { ...record.container, host: address.host, port: address.port, network: address.network }, updated_at: now };
        if (current?.running && current.hostPort) {
          // The engine may publish the port anew after it restarted.
          return current.hostPort === record.container.port ? record : { ...record, container: { ...record.container, port: current.hostPort }, updated_at: now };
        }
        return { ...record, status: "failed", updated_at: now };
      });
      if (!updated) continue;
      if (updated.status === "failed" && deployment.status === "running") {
        const state = await runtime.inspectContainer(saved.id);
        if (state?.oomKilled) await this.deployments.update(siteId, (record) => ({ ...record, last_exit_oom: true }));
      }
      this.containers.publish(siteId, updated);
      if (updated.status === "running") running += 1;
    }
    return running;
  }

  /** A run still queued gets a new job (its old one ended with the old server) and waits for its turn. */
  private async resumeQueued(entry: QueueEntry): Promise<boolean> {
    const run = await this.runs.get(entry.site_id, entry.run_id);
    if (run?.status !== "queued") {
      await this.queue.leave(entry.run_id);
      return false;
    }
    const job = await this.jobs.start({ ownerId: run.owner_id, siteId: run.site_id, type: "deploy", runId: run.run_id }, this.pipeline.work(run.site_id, run.run_id));
    await this.runs.modify(run.site_id, run.run_id, (record) => ({ ...record, job_id: job.job_id }));
    return true;
  }
}
