import type { DeployStarted } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { CONFIG, siteUrl, type RepositeConfig } from "../config.js";
import { conflict, notFound, unprocessable } from "../errors.js";
import { JobsService } from "../jobs/jobs-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { ProjectsService } from "../projects/projects-service.js";
import { PublishingService } from "../sites/publishing-service.js";
import { isWellFormedId } from "../util/record-ids.js";
import { SecretBox } from "../util/secret-box.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { AppAccess, type ProjectWithApp } from "./app-access.js";
import { AppChanges } from "./app-changes.js";
import { AppContainers } from "./app-containers.js";
import { AppDisk } from "./app-disk.js";
import { AppRecovery, type RecoveryReport } from "./app-recovery.js";
import { imageTag } from "./app-names.js";
import { BuildQueue } from "./build-queue.js";
import { toRunDetailView, toRunView, type DeployRunRecord, type RunDetailView, type RunView } from "./deploy-run.js";
import { DeployRunStore } from "./deploy-run-store.js";
import { DeployPipeline } from "./deploy-pipeline.js";
import { DeploymentStore } from "./deployment-store.js";
import { envInputSchema, maskedEnv, MAX_ENV_KEYS, type EnvView } from "./deployment-env.js";
import { envContext, toDeploymentView, type DeploymentRecord, type DeploymentView } from "./deployment-record.js";
import { DEFAULT_SETUP, setupInputSchema, type DeploymentSetup } from "./deployment-setup.js";
import { HostingAvailability } from "./hosting-availability.js";
import type { ResourcesView } from "./resources.js";
import { AppResources } from "../billing/app-resources.js";

/** Answer of `PUT …/deployment`: `created` tells `201` from `200`. */
export interface SetupResult {
  created: boolean;
  deployment: DeploymentView;
}

/** Answer of `POST …/deployment/deploy`: the contract's. */
export type { DeployStarted } from "@reposite/contract";

/**
 * App hosting, as the API offers it: the setup, env, deploys and their runs, stop/start/restart,
 * removal and resources of each project's app. Every method answers `503 hosting_unavailable` on
 * a server without a container runtime, and `404` for a project that is missing or someone else's.
 * Setting up, deploying, starting and restarting first ask `HOSTING_ENTITLEMENTS` (`402
 * payment_required` when the account may not host this project).
 */
@injectable()
export class HostingService {
  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(ProjectsService) private readonly projects: ProjectsService,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(PublishingService) private readonly publishing: PublishingService,
    @inject(JobsService) private readonly jobs: JobsService,
    @inject(DeployRunStore) private readonly runs: DeployRunStore,
    @inject(BuildQueue) private readonly queue: BuildQueue,
    @inject(DeployPipeline) private readonly pipeline: DeployPipeline,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppRecovery) private readonly recovery: AppRecovery,
    @inject(AppChanges) private readonly changes: AppChanges,
    @inject(SecretBox) private readonly secrets: SecretBox,
    @inject(AppDisk) private readonly disk: AppDisk,
    @inject(AppAccess) private readonly access: AppAccess,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(AppResources) private readonly resourceOffers: AppResources,
  ) {}

  /** Whether this server hosts apps (a container runtime is registered). */
  get available(): boolean {
    return this.availability.on;
  }

  /**
   * `PUT …/deployment`: sets the fields sent, keeps the rest (defaults on the first call). The
   * first setup of a project without an address claims one derived from its name. Changes apply
   * at the next deploy (or restart, for `port`, `health_path` and `volume_path`).
   * `422 invalid_request` naming the field; `422 base_image_required` for `bare` without one.
   */
  async setup(ownerId: string, siteId: string, input: unknown): Promise<SetupResult> {
    this.availability.runtime();
    const changes = parseInput(setupInputSchema, input);
    await this.projects.getOwned(ownerId, siteId);
    await this.access.assertMayHost(ownerId, siteId);
    const slug = await this.publishing.ensureSlug(ownerId, siteId);
    let created = false;
    const updated = await this.deployments.modify(siteId, (existing) => {
      const now = this.now();
      const setup: DeploymentSetup = { ...DEFAULT_SETUP, ...existing?.setup };
      for (const [field, value] of Object.entries(changes)) if (value !== undefined) (setup as unknown as Record<string, unknown>)[field] = value;
      if (setup.build_mode === "bare" && !setup.base_image) {
        throw unprocessable("A bare box needs base_image: one of the five the API lists.", "base_image_required", { field: "base_image" });
      }
      created = existing === null;
      return existing
        ? { ...existing, setup, updated_at: now }
        : {
            status: "configured",
            url: `${siteUrl(this.config, slug)}/app/`,
            setup,
            env: {},
            container: null,
            last_run_id: null,
            run: null,
            last_exit_oom: false,
            override: null,
            stopped_reason: null,
            created_at: now,
            updated_at: now,
          } satisfies DeploymentRecord;
    });
    if (!updated) throw notFound("Project not found.");
    if (created) this.containers.publish(siteId, updated);
    return { created, deployment: await this.view(siteId, updated, slug) };
  }

  /**
   * `GET …/deployment`. An app saved as running whose container has stopped by itself (it
   * crashed, or ran out of memory) is found out here and shown `failed`, with `last_exit_oom`.
   */
  async read(ownerId: string, siteId: string): Promise<DeploymentView> {
    this.availability.runtime();
    const project = await this.access.owned(ownerId, siteId);
    return this.view(siteId, await this.checkAlive(project), project.slug);
  }

  /** `GET …/deployment/env`: the names, every value masked. */
  async env(ownerId: string, siteId: string): Promise<EnvView> {
    this.availability.runtime();
    const { deployment } = await this.access.owned(ownerId, siteId);
    return maskedEnv(Object.keys(deployment.env));
  }

  /**
   * `PUT …/deployment/env`: sets the names sent (`null` removes one), keeps the rest; values are
   * sealed before they are stored. It answers at once; a running app is then restarted with them
   * in the background (a new container, health-checked, then traffic switches), which the
   * deployment read shows as `last_operation` (`env_restart`, `under_way`, then `done` or `failed`
   * with a reason and a diagnosis: the values stay saved and the previous container keeps serving).
   */
  async setEnv(ownerId: string, siteId: string, input: unknown): Promise<EnvView> {
    this.availability.runtime();
    const { env } = parseInput(envInputSchema, input);
    await this.access.owned(ownerId, siteId);
    const sealed = Object.fromEntries(
      await Promise.all(
        Object.entries(env).map(async ([key, value]) => [key, value === null ? null : await this.secrets.seal(value, envContext(siteId, key))] as const),
      ),
    );
    const updated = await this.deployments.update(siteId, (deployment) => {
      const next = { ...deployment.env };
      for (const [key, value] of Object.entries(sealed)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      if (Object.keys(next).length > MAX_ENV_KEYS) {
        throw unprocessable(`An app has at most ${MAX_ENV_KEYS} env values.`, "invalid_request", { field: "env" });
      }
      return { ...deployment, env: next, updated_at: this.now() };
    });
    if (!updated) throw notFound("Project not found.");
    // Its health check may take a minute: longer than a client waits for an answer.
    if (updated.status === "running" && updated.container) await this.changes.begin(siteId, "env_restart");
    return maskedEnv(Object.keys(updated.env));
  }

  /**
   * `POST …/deployment/deploy` → `202 {job_id, run_id}`: queues a run (see `BuildQueue` for the
   * limits) whose job streams the build and start log. `409 not_configured` before the setup.
   */
  async deploy(ownerId: string, siteId: string): Promise<DeployStarted> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    await this.access.assertMayHost(ownerId, siteId);
    await this.disk.assertRoom(siteId);
    return this.startRun(ownerId, siteId);
  }

  /**
   * Queues a run (ownership, payment and room already checked by the caller). Without `dockerfile`
   * it builds the kept override when there is one, else the repository's; with it, that Dockerfile
   * (a fix attempt, which is not kept unless it works).
   */
  async startRun(ownerId: string, siteId: string, attempt?: { dockerfile: string }): Promise<DeployStarted> {
    const { deployment } = await this.access.owned(ownerId, siteId);
    const override = deployment.override ?? null;
    const source = attempt ? "fix" : override && deployment.setup.build_mode !== "bare" ? "override" : "repository";
    const dockerfile = attempt ? attempt.dockerfile : source === "override" ? override!.dockerfile : null;
    const runId = this.ids.newId("run");
    return this.queue.enqueue({ run_id: runId, site_id: siteId, owner_id: ownerId }, async () => {
      const job = await this.jobs.start({ ownerId, siteId, type: "deploy", runId }, this.pipeline.work(siteId, runId));
      const run: DeployRunRecord = {
        run_id: runId,
        site_id: siteId,
        owner_id: ownerId,
        job_id: job.job_id,
        status: "queued",
        ref: deployment.setup.ref,
        build_mode: deployment.setup.build_mode,
        created_at: this.now(),
        started_at: null,
        finished_at: null,
        reason: null,
        exit_oom: false,
        diagnosis: null,
        dockerfile_source: source,
        dockerfile,
        image: null,
        log_lines: 0,
        log_tail: [],
      };
      await this.runs.insert(run);
      await this.deployments.update(siteId, (record) => ({ ...record, run: { run_id: runId, status: "queued" }, last_run_id: runId, updated_at: this.now() }));
      return { job_id: job.job_id, run_id: runId };
    });
  }

  /** `GET …/deployment/runs`: the last 20 runs, newest first. */
  async listRuns(ownerId: string, siteId: string): Promise<RunView[]> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    return (await this.runs.list(siteId)).map(toRunView);
  }

  /** `GET …/deployment/runs/{run_id}`: one run with the kept end of its log. */
  async getRun(ownerId: string, siteId: string, runId: string): Promise<RunDetailView> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    const run = isWellFormedId(runId, "run") ? await this.runs.get(siteId, runId) : null;
    if (!run) throw notFound("Run not found.");
    return toRunDetailView(run);
  }

  /**
   * `POST …/deployment/restart`: a new container from the app's image with its setup and env as
   * they are now; traffic switches once it answers, then the old one drains and goes. When it does
   * not come up the old one keeps serving: `502 app_unhealthy`. `409 not_deployed` before a deploy.
   */
  async restart(ownerId: string, siteId: string): Promise<DeploymentView> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    await this.access.assertMayHost(ownerId, siteId);
    await this.replaceContainer(siteId);
    return this.currentView(ownerId, siteId);
  }

  /**
   * `POST …/deployment/start`: as restart, for a stopped (or failed) app; a running app is answered
   * as it is. `409 storage_full` when the app's data volume alone fills its disk.
   */
  async start(ownerId: string, siteId: string): Promise<DeploymentView> {
    this.availability.runtime();
    const deployment = await this.checkAlive(await this.access.owned(ownerId, siteId));
    await this.access.assertMayHost(ownerId, siteId);
    if (deployment.status !== "running") {
      // An app whose data volume alone fills its disk would only be stopped again.
      await this.disk.assertRoom(siteId);
      await this.replaceContainer(siteId);
    }
    return this.currentView(ownerId, siteId);
  }

  /** `POST …/deployment/stop`: the container stops (SIGTERM, then SIGKILL) and `/app/` shows the app stopped. Always allowed. */
  async stop(ownerId: string, siteId: string): Promise<DeploymentView> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    await this.containers.withAppLock(siteId, () => this.containers.stop(siteId));
    return this.currentView(ownerId, siteId);
  }

  /**
   * `DELETE …/deployment`: a run under way is cancelled, then the containers, images, data volume,
   * network, runs and env go, and the project has no app any more. Always allowed.
   */
  async remove(ownerId: string, siteId: string): Promise<void> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    await this.removeApp(siteId);
  }

  /** `GET …/deployment/resources`: memory and disk now, the units paid, and the steps with their prices (`AppResources`). */
  async resources(ownerId: string, siteId: string): Promise<ResourcesView> {
    this.availability.runtime();
    const { deployment } = await this.access.owned(ownerId, siteId);
    return this.resourceOffers.view(siteId, deployment);
  }

  /**
   * Everything a project's app holds goes (deleting the project calls this; ownership is the
   * caller's to check). Without a runtime only the records go.
   */
  async removeApp(siteId: string): Promise<void> {
    const active = await this.queue.runOf(siteId);
    if (active) {
      const run = await this.runs.get(siteId, active.run_id);
      if (run?.job_id) await this.jobs.cancel(run.owner_id, run.job_id).catch(() => undefined);
      await this.pipeline.settled(active.run_id);
      await this.queue.leave(active.run_id);
    }
    const runs = await this.runs.list(siteId);
    await this.containers.withAppLock(siteId, async () => {
      const deployment = await this.deployments.get(siteId);
      if (this.availability.on && (deployment || runs.length > 0)) {
        const images = [
          ...(deployment?.container ? [deployment.container.image, ...(deployment.container.image_ref ? [deployment.container.image_ref] : [])] : []),
          ...runs.map((run) => run.image ?? imageTag(siteId, run.run_id)),
        ];
        await this.containers.removeAll(siteId, images);
      }
      if (deployment) await this.deployments.remove(siteId);
    });
    await this.runs.purge(siteId);
  }

  /**
   * At start: puts running apps back in the `/app/` table (found by their labels), ends runs the
   * stopped server left `building` or `starting` as `failed`, and takes queued runs up again.
   */
  async recover(): Promise<RecoveryReport> {
    const report = await this.recovery.recover();
    this.disk.watch();
    return report;
  }

  /** Ends runs under way here (`failed`: the server stopped) and waits for them and for old containers being retired; queued runs stay queued. */
  async close(): Promise<void> {
    await this.disk.close();
    await this.pipeline.close();
    await this.recovery.close();
    await this.containers.retired();
  }

  /** A new container for a running, stopped or failed app, from its current image; traffic switches once it answers. */
  private async replaceContainer(siteId: string): Promise<void> {
    await this.containers.withAppLock(siteId, async () => {
      const deployment = await this.deployments.get(siteId);
      if (!deployment?.container) throw conflict("The app has not been deployed yet: deploy it first (POST …/deployment/deploy).", "not_deployed");
      await this.containers.relaunch(siteId, deployment, deployment.container);
    });
  }

  /**
   * A `running` app whose container is not running any more is saved `failed` (with
   * `last_exit_oom`), and the proxy told; answers the app as it is then.
   */
  private async checkAlive({ id, deployment }: ProjectWithApp): Promise<DeploymentRecord> {
    if (deployment.status !== "running" || !deployment.container) return deployment;
    const state = await this.availability.runtime().inspectContainer(deployment.container.id);
    if (state?.running) return deployment;
    const containerId = deployment.container.id;
    const updated = await this.deployments.update(id, (record) =>
      record.status === "running" && record.container?.id === containerId
        ? { ...record, status: "failed", last_exit_oom: state?.oomKilled ?? false, updated_at: this.now() }
        : record,
    );
    if (!updated) throw notFound("Project not found.");
    this.containers.publish(id, updated);
    return updated;
  }

  /** The deployment read of the caller's app as it is now. */
  private async currentView(ownerId: string, siteId: string): Promise<DeploymentView> {
    const project = await this.access.owned(ownerId, siteId);
    return this.view(siteId, project.deployment, project.slug);
  }

  /** `slug` is the project's (the app's record does not keep it). */
  private async view(siteId: string, deployment: DeploymentRecord, slug: string | null): Promise<DeploymentView> {
    const last = deployment.last_run_id ? await this.runs.get(siteId, deployment.last_run_id) : null;
    return toDeploymentView(slug, deployment, last);
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}
