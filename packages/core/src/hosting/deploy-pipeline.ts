import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { RepositeError } from "../errors.js";
import type { JobWork, RunningJob } from "../jobs/jobs-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { BuildFailure, type ContainerRuntime, type FailedBuildStep } from "../ports/container-runtime.js";
import type { ProjectRecord } from "../projects/project.js";
import type { SourceTree } from "../repo-analysis/source-tree.js";
import { ProjectStore } from "../projects/project-store.js";
import { RepoAccessService } from "../repo-access/repo-access-service.js";
import { formatTimestamp } from "../util/timestamps.js";
import { AppContainers } from "./app-containers.js";
import { AppDisk } from "./app-disk.js";
import { AppLimits } from "../billing/app-limits.js";
import { appLabels, imageTag } from "./app-names.js";
import { buildContext, contextOf, readArchiveFacts, spoolArchive } from "./build-context.js";
import { BuildQueue } from "./build-queue.js";
import { SERVER_STOPPED_REASON, type DeployRunRecord, type RunStatus } from "./deploy-run.js";
import { DeployRunStore } from "./deploy-run-store.js";
import { DeploymentStore } from "./deployment-store.js";
import { BuildLogKeeper } from "./diagnosis/build-log-keeper.js";
import { diagnoseRun, maskDiagnosis, type RunStage } from "./diagnosis/diagnose.js";
import { hideHostPaths } from "./diagnosis/host-paths.js";
import type { Diagnosis } from "./diagnosis/diagnosis.js";
import type { DockerfileFacts } from "./diagnosis/dockerfile-facts.js";
import { AppStartFailure } from "./diagnosis/start-facts.js";
import type { DeploymentRecord } from "./deployment-record.js";
import { HostingAvailability } from "./hosting-availability.js";
import { DEFAULT_HOSTING_SETTINGS, FREE_TIER, HOSTING_SETTINGS, type HostingSettings } from "./hosting-settings.js";
import { autoRecipe, bareRecipe, givenRecipe, repositoryRecipe, type ImageRecipe } from "./image-recipe.js";
import { RunLog } from "./run-log.js";
import { createSecretMasker } from "./secret-masker.js";
import { untilAborted } from "../util/until-aborted.js";

/** Said by a run cancelled through its job. */
export const CANCELLED_REASON = "The deploy was cancelled.";

/**
 * A failure with the reason the run shows (already masked), whether the app ran out of memory,
 * and for a failed build the builder's facts (for the diagnosis).
 */
class RunFailure extends RepositeError {
  constructor(
    message: string,
    readonly exitOom = false,
    readonly build: { reason: "failed" | "out_of_memory" | "timeout"; exitCode?: number; message: string; step?: FailedBuildStep } | null = null,
  ) {
    super(422, message, "deploy_failed");
  }
}

/**
 * One deploy run, as the work of its job: wait for a build slot (`queued`), read the source at
 * the setup's ref, make the Dockerfile (the repository's, the one `auto` writes, or the bare box),
 * build the image within the memory and time limits (`building`), start a container and wait until
 * it answers its health path from the host (`starting`), switch traffic to it and retire the old
 * one (`done`). Whatever fails, the previous container keeps serving, the new container and image
 * go, and the run ends `failed` with a reason. The build and start log streams through the job
 * (`RunLog`: masked, batched, capped) and its end stays on the run record.
 */
@injectable()
export class DeployPipeline {
  private readonly settings: HostingSettings;
  private readonly underWay = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(ProjectStore) private readonly store: ProjectStore,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(DeployRunStore) private readonly runs: DeployRunStore,
    @inject(BuildQueue) private readonly queue: BuildQueue,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppDisk) private readonly disk: AppDisk,
    @inject(AppLimits) private readonly limits: AppLimits,
    @inject(RepoAccessService) private readonly repoAccess: RepoAccessService,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(HOSTING_SETTINGS, { isOptional: true }) settings?: Partial<HostingSettings>,
  ) {
    this.settings = { ...DEFAULT_HOSTING_SETTINGS, ...settings };
  }

  /** The work of the job that drives run `runId` of `siteId`. */
  work(siteId: string, runId: string): JobWork {
    return (job) => {
      const done = this.run(siteId, runId, job);
      const tracked = done.then(
        () => undefined,
        () => undefined,
      );
      this.underWay.set(runId, tracked);
      void tracked.finally(() => this.underWay.delete(runId));
      return done;
    };
  }

  /** Resolves when run `runId` has ended here (at once when it does not run here). */
  async settled(runId: string): Promise<void> {
    await this.underWay.get(runId);
  }

  /**
   * The server is stopping: runs under way end `failed` ("the server stopped during the run");
   * queued runs stay queued and go on at the next start. Resolves once every run here ended.
   */
  async close(): Promise<void> {
    this.queue.close();
    this.shutdown.abort();
    await Promise.all([...this.underWay.values()]);
  }

  private async run(siteId: string, runId: string, job: RunningJob): Promise<void> {
    const signal = AbortSignal.any([job.signal, this.shutdown.signal]);
    const secrets = new Set<string>();
    let mask = (text: string) => text;
    const log = new RunLog((text) => job.write(text), (text) => mask(text), {
      flushMs: this.settings.logFlushMs,
      flushLines: this.settings.logFlushLines,
    });
    const addSecrets = (env: Record<string, string>) => {
      for (const value of Object.values(env)) secrets.add(value);
      mask = createSecretMasker(secrets);
    };
    let built: string | null = null;
    let started = false;
    // What a diagnosis of a failure needs, gathered as the run goes.
    let stage: RunStage = "queue";
    let dockerfile: DockerfileFacts | null = null;
    let tree: SourceTree | null = null;
    // The failing step's start is kept apart from the log's tail, however long the step's output.
    const buildLog = new BuildLogKeeper();
    try {
      const waiting = await this.queue.waiting(runId);
      if (waiting) {
        const ahead = waiting.ahead > 0 ? ` and ${waiting.ahead} more queued ahead` : "";
        log.line(`Queued: ${waiting.building} deploy${waiting.building === 1 ? "" : "s"} of other accounts under way${ahead}; this one starts when a build slot is free.`);
      }
      await untilAborted(this.queue.waitForTurn(runId), signal);
      started = true;
      stage = "source";
      const { project, deployment, run } = await this.begin(siteId, runId);
      const runtime = this.availability.runtime();
      const env = await this.containers.openEnv(siteId, deployment);
      addSecrets(env);

      const { setup } = deployment;
      const workDir = join(this.config.dataDir, "tmp", "builds");
      const archive = join(workDir, `${runId}.tar.gz`);
      try {
        let recipe: ImageRecipe;
        let context: NodeJS.ReadableStream;
        if (setup.build_mode === "bare") {
          recipe = bareRecipe(setup.base_image!, this.settings.bareImages);
          dockerfile = { path: recipe.dockerfile, text: recipe.extra[recipe.dockerfile] ?? null, origin: "bare" };
          log.line(`Making a bare ${setup.base_image} box.`);
          context = contextOf(recipe.extra);
        } else {
          log.line(`Reading ${project.repository.url} at ${setup.ref} …`);
          await mkdir(workDir, { recursive: true, mode: 0o700 });
          await spoolArchive(await this.repoAccess.sourceArchive(project.owner_id, project.repository.url, setup.ref === "HEAD" ? undefined : setup.ref), archive);
          const facts = await readArchiveFacts(archive);
          tree = facts.tree;
          if (run.dockerfile !== null) {
            recipe = givenRecipe(run.dockerfile);
            dockerfile = { path: recipe.dockerfile, text: run.dockerfile, origin: run.dockerfile_source === "fix" ? "fix" : "override" };
            log.line(run.dockerfile_source === "fix" ? "Building the Dockerfile this fix attempt wrote." : "Building the fixed Dockerfile the service kept (DELETE …/deployment/override builds the repository's own again).");
          } else {
            recipe = setup.build_mode === "auto" ? autoRecipe(facts, this.config.baseImages, env, setup.root_dir ?? null) : repositoryRecipe(setup, facts);
            dockerfile =
              setup.build_mode === "auto"
                ? { path: recipe.dockerfile, text: recipe.extra[recipe.dockerfile] ?? null, origin: "auto" }
                : { path: setup.dockerfile_path, text: facts.tree.read(recipe.dockerfile), origin: "repository" };
            if (setup.build_mode === "auto") log.line(`No Dockerfile needed: Reposite wrote one (${recipe.dockerfile}).`);
          }
          context = buildContext(archive, recipe.extra);
        }
        throwIfAborted(signal);
        const tag = imageTag(siteId, runId);
        log.line(`Building ${tag} from ${recipe.dockerfile} (at most ${this.settings.buildMemoryMb} MB, ${Math.round(this.settings.buildTimeoutMs / 60_000)} min) …`);
        built = tag;
        stage = "build";
        // Records are saved beside the work they describe, not before it: each write is a flushed file.
        const imageNoted = this.runs.modify(siteId, runId, (run) => ({ ...run, image: tag }));
        imageNoted.catch(() => undefined);
        await this.build(runtime, recipe, context, tag, siteId, runId, signal, (line) => {
          buildLog.push(line);
          log.line(line);
        });
        await imageNoted;
        log.line("Image built.");

        stage = "start";
        const starting = this.setRunStatus(siteId, runId, "starting");
        starting.catch(() => undefined);
        await this.containers.withAppLock(siteId, async () => {
          throwIfAborted(signal);
          // Read again under the lock: the env may have changed while the image was built.
          const current = (await this.deployments.get(siteId));
          if (!current) throw new RunFailure("The app was removed during the run.");
          const currentEnv = await this.containers.openEnv(siteId, current);
          addSecrets(currentEnv);
          const next = await this.containers.launch(siteId, current, {
            image: tag,
            keepAlive: recipe.command !== undefined,
            env: currentEnv,
            runId,
            log: (line) => log.line(line),
            signal,
          });
          await starting.catch(async (error: unknown) => {
            await this.availability.runtime().removeContainer(next.id).catch(() => undefined);
            throw error;
          });
          const saved = await this.containers.switchTo(siteId, next, (record) => ({ ...record, run: null }));
          if (!saved) throw new RunFailure("The app was removed during the run.");
          built = null;
          await this.containers.startOutput(next.id, (line) => log.line(line));
          log.line(`Live at ${saved.url}`);
        });
      } finally {
        await rm(archive, { force: true });
      }
      await this.end(siteId, runId, log, { status: "done", reason: null, exit_oom: false, diagnosis: null });
      await this.disk.afterDeploy(siteId);
    } catch (error) {
      const failure = this.failureOf(error, signal, mask);
      if (!started && this.shutdown.signal.aborted) {
        // Still queued when the server stopped: it stays queued and goes on at the next start.
        log.finish();
        throw failure;
      }
      log.line(failure.message);
      if (built) await this.availability.runtime().removeImage(built).catch(() => undefined);
      const appMemoryMb = await this.limits.memoryMb(siteId).catch(() => FREE_TIER.memoryMb);
      const diagnosis = this.diagnosisOf(error, failure, signal, mask, { stage, dockerfile, tree, buildLog, appMemoryMb });
      const exitOom = failure.exitOom || diagnosis.limit?.kind === "memory";
      await this.end(siteId, runId, log, { status: "failed", reason: failure.message, exit_oom: exitOom, diagnosis });
      throw failure;
    } finally {
      if (started || !this.shutdown.signal.aborted) await this.queue.leave(runId);
    }
  }

  /** The run leaves the queue: `building`, shown on the deployment too. */
  private async begin(siteId: string, runId: string): Promise<{ project: ProjectRecord; deployment: DeploymentRecord; run: DeployRunRecord }> {
    // Three records (the project only read), side by side.
    const [run, deployment, project] = await Promise.all([
      this.runs.modify(siteId, runId, (record) => ({ ...record, status: "building", started_at: this.now() })),
      this.deployments.update(siteId, (record) => ({ ...record, run: { run_id: runId, status: "building" }, updated_at: this.now() })),
      this.store.get(siteId),
    ]);
    if (!run) throw new RunFailure("The run was removed before its turn came.");
    if (!deployment || !project) throw new RunFailure("The app was removed before its turn came.");
    this.containers.publish(siteId, deployment);
    return { project, deployment, run };
  }

  private async setRunStatus(siteId: string, runId: string, status: RunStatus): Promise<void> {
    const [, deployment] = await Promise.all([
      this.runs.modify(siteId, runId, (run) => ({ ...run, status })),
      this.deployments.update(siteId, (record) => (record.run?.run_id === runId ? { ...record, run: { run_id: runId, status } } : record)),
    ]);
    if (deployment) this.containers.publish(siteId, deployment);
  }

  private async build(
    runtime: ContainerRuntime,
    recipe: ImageRecipe,
    context: NodeJS.ReadableStream,
    tag: string,
    siteId: string,
    runId: string,
    signal: AbortSignal,
    onLog: (line: string) => void,
  ): Promise<void> {
    try {
      await runtime.buildImage({
        context,
        dockerfile: recipe.dockerfile,
        tag,
        labels: appLabels(siteId, this.settings.labels, runId),
        memoryMb: this.settings.buildMemoryMb,
        timeoutMs: this.settings.buildTimeoutMs,
        signal,
        onLog,
      });
    } catch (error) {
      if (!(error instanceof BuildFailure) && (error as Error)?.name !== "BuildFailure") throw error;
      const failure = error as BuildFailure;
      if (failure.reason === "cancelled") throw error;
      const facts = {
        reason: failure.reason,
        ...(failure.exitCode !== undefined ? { exitCode: failure.exitCode } : {}),
        message: failure.message,
        // The builder's own account of the failing step: found whatever the length of the log kept.
        ...(failure.step ? { step: failure.step } : {}),
      };
      if (failure.reason === "out_of_memory") throw new RunFailure(`The build ran out of memory (it may use ${this.settings.buildMemoryMb} MB).`, true, facts);
      if (failure.reason === "timeout") throw new RunFailure(`The build took longer than ${Math.round(this.settings.buildTimeoutMs / 60_000)} minutes and was stopped.`, false, facts);
      throw new RunFailure(`The build failed${failure.exitCode !== undefined ? ` (exit code ${failure.exitCode})` : ""}: ${failure.message}`, false, facts);
    }
  }

  /** Ends the run and clears it from the deployment; a deployment with no container left shows `failed`. */
  private async end(siteId: string, runId: string, log: RunLog, outcome: Pick<DeployRunRecord, "status" | "reason" | "exit_oom" | "diagnosis">): Promise<void> {
    const tail = log.finish();
    await this.runs.modify(siteId, runId, (run) => ({ ...run, ...outcome, finished_at: this.now(), log_lines: log.lines, log_tail: tail }));
    const updated = await this.deployments.update(siteId, (deployment) => {
      if (deployment.run?.run_id !== runId) return deployment;
      const failed = outcome.status === "failed";
      return {
        ...deployment,
        run: null,
        status: failed && !deployment.container ? "failed" : deployment.status,
        last_exit_oom: failed && outcome.exit_oom ? true : deployment.last_exit_oom,
        updated_at: this.now(),
      };
    });
    if (updated) this.containers.publish(siteId, updated);
  }

  /** What went wrong, for a person, from what the run knew where it failed; masked like the reason. */
  private diagnosisOf(
    error: unknown,
    failure: RunFailure,
    signal: AbortSignal,
    mask: (text: string) => string,
    known: { stage: RunStage; dockerfile: DockerfileFacts | null; tree: SourceTree | null; buildLog: BuildLogKeeper; appMemoryMb: number },
  ): Diagnosis {
    try {
      const diagnosis = diagnoseRun({
        ...known,
        reason: failure.message,
        stopped: signal.aborted ? (this.shutdown.signal.aborted ? "server_stopped" : "cancelled") : null,
        build:
          !signal.aborted && error instanceof RunFailure && error.build
            ? { ...error.build, log: known.buildLog.lines(), baseImages: this.config.baseImages, buildMemoryMb: this.settings.buildMemoryMb, buildTimeoutMs: this.settings.buildTimeoutMs, appMemoryMb: known.appMemoryMb }
            : null,
        start: signal.aborted ? null : AppStartFailure.facts(error),
        error,
      });
      return maskDiagnosis(diagnosis, mask);
    } catch (problem) {
      // A diagnosis must never hide the failure itself.
      console.error("[reposite] diagnosing a failed run failed:", problem);
      return { kind: "other", title: "The deploy failed", detail: failure.message, fix: "Deploy again." };
    }
  }

  /**
   * The failure the run shows, masked and without the server's own paths (an engine error names
   * its data root); cancelled and interrupted runs say so.
   */
  private failureOf(error: unknown, signal: AbortSignal, mask: (text: string) => string): RunFailure {
    if (signal.aborted) return new RunFailure(this.shutdown.signal.aborted ? SERVER_STOPPED_REASON : CANCELLED_REASON);
    const shown = (text: string) => hideHostPaths(mask(text));
    if (error instanceof RunFailure) return new RunFailure(shown(error.message), error.exitOom, error.build);
    if (RepositeError.isInstance(error)) return new RunFailure(shown(error.message), error.details?.exit_oom === true);
    console.error("[reposite] a deploy step failed:", error instanceof Error ? mask(error.stack ?? error.message) : error);
    return new RunFailure(shown(`The deploy failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
