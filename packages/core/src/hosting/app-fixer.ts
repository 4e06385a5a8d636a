import { join } from "node:path";
import type { FixStarted } from "@reposite/contract";
import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { conflict, RepositeError } from "../errors.js";
import { JobsService, type RunningJob } from "../jobs/jobs-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { LANGUAGE_MODEL, type LanguageModel } from "../ports/language-model.js";
import { RepoAccessService } from "../repo-access/repo-access-service.js";
import { formatTimestamp } from "../util/timestamps.js";
import { AppAccess, type ProjectWithApp } from "./app-access.js";
import { AppContainers } from "./app-containers.js";
import { AppDisk } from "./app-disk.js";
import type { DeployRunRecord } from "./deploy-run.js";
import { DeployRunStore } from "./deploy-run-store.js";
import { DeploymentStore } from "./deployment-store.js";
import type { DeploymentRecord, DeploymentView } from "./deployment-record.js";
import { askModelForDockerfile } from "./fix/ask-model.js";
import { failingDockerfile, readSourceFacts, type FailingDockerfile } from "./fix/failing-dockerfile.js";
import { fixPrompt, type FixMaterial } from "./fix/fix-prompt.js";
import { followRun } from "./fix/follow-run.js";
import { ruleFix } from "./fix/rule-fixes.js";
import { HostingAvailability } from "./hosting-availability.js";
import { HostingService } from "./hosting-service.js";
import { createSecretMasker } from "./secret-masker.js";

/** Attempts one `POST …/deployment/fix` makes at most, each a run. */
export const FIX_ATTEMPTS = 3;

/** Answer of `POST …/deployment/fix`: the contract's (the fix's own job, which streams every attempt and its run's log). */
export type { FixStarted } from "@reposite/contract";

/** What one attempt deploys. */
interface AttemptPlan {
  says: string;
  /** A Dockerfile to build instead of what a plain deploy builds. */
  dockerfile?: string;
  setup?: { port: number };
}

/**
 * `POST …/deployment/fix`: after a failed run, a corrected Dockerfile is written (by the language
 * model from the failing Dockerfile, the diagnosis and the masked log tail; without a model, by
 * the fixes the diagnosis makes certain) and deployed, up to `FIX_ATTEMPTS` times, each attempt a
 * run that the next one learns from. The Dockerfile that works is kept as the deployment's
 * override, which later deploys build; the repository is never changed.
 * `DELETE …/deployment/override` forgets it.
 */
@injectable()
export class AppFixer {
  /** Apps with a fix under way in this process. */
  private readonly fixing = new Set<string>();

  constructor(
    @inject(HostingAvailability) private readonly availability: HostingAvailability,
    @inject(HostingService) private readonly hosting: HostingService,
    @inject(DeploymentStore) private readonly deployments: DeploymentStore,
    @inject(DeployRunStore) private readonly runs: DeployRunStore,
    @inject(JobsService) private readonly jobs: JobsService,
    @inject(AppContainers) private readonly containers: AppContainers,
    @inject(AppDisk) private readonly disk: AppDisk,
    @inject(RepoAccessService) private readonly repoAccess: RepoAccessService,
    @inject(AppAccess) private readonly access: AppAccess,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LANGUAGE_MODEL, { isOptional: true }) private readonly model?: LanguageModel,
  ) {}

  /**
   * Starts a fix of the app's last failed run and answers its job at once (`202`). `409`
   * `run_under_way` while a run is queued or under way, `fix_under_way` during another fix,
   * `nothing_to_fix` when the last run did not fail (or the app is a bare box); `402
   * payment_required`; `409 storage_full`; without a model, `503 ai_not_configured` when no fix
   * the diagnosis knows applies.
   */
  async fix(ownerId: string, siteId: string): Promise<FixStarted> {
    this.availability.runtime();
    const project = await this.access.owned(ownerId, siteId);
    await this.access.assertMayHost(ownerId, siteId);
    const { deployment } = project;
    if (this.fixing.has(siteId)) throw conflict("A fix of this app is under way already; follow its job.", "fix_under_way");
    if (deployment.run) throw conflict("A run of this app is queued or under way; fix it once it has ended, if it fails.", "run_under_way");
    if (deployment.setup.build_mode === "bare") throw conflict("A bare box has no Dockerfile to fix.", "nothing_to_fix");
    const failed = deployment.last_run_id ? await this.runs.get(siteId, deployment.last_run_id) : null;
    if (failed?.status !== "failed") throw conflict("The app's last run did not fail: there is nothing to fix.", "nothing_to_fix");
    await this.disk.assertRoom(siteId);
    if (!this.model && !ruleFix(failed.diagnosis, deployment.setup)) {
      throw new RepositeError(
        503,
        `No language model is configured on this server, and this failure (${failed.diagnosis?.title ?? failed.reason ?? "unknown"}) has no fix that works without one. Follow the diagnosis's advice, or ask the operator to configure a model (OPENAI_API_KEY).`,
        "ai_not_configured",
      );
    }
    const writer = this.model ? "model" : "rules";
    this.fixing.add(siteId);
    try {
      const job = await this.jobs.start({ ownerId, siteId, type: "deploy", details: { kind: "fix", writer, max_attempts: FIX_ATTEMPTS } }, async (running) => {
        try {
          await this.attempts(running, project, failed);
        } finally {
          this.fixing.delete(siteId);
        }
      });
      return { job_id: job.job_id, writer, max_attempts: FIX_ATTEMPTS };
    } catch (error) {
      this.fixing.delete(siteId);
      throw error;
    }
  }

  /**
   * `DELETE …/deployment/override`: forgets the kept fix, so the next deploy builds the
   * repository's own Dockerfile again (the app keeps running as it is until then); answers the
   * deployment read. Always allowed, and idempotent; `409 fix_under_way` during a fix.
   */
  async removeOverride(ownerId: string, siteId: string): Promise<DeploymentView> {
    this.availability.runtime();
    await this.access.owned(ownerId, siteId);
    if (this.fixing.has(siteId)) throw conflict("A fix of this app is under way; wait for its job to end.", "fix_under_way");
    await this.deployments.update(siteId, (deployment) => (deployment.override ? { ...deployment, override: null, updated_at: this.now() } : deployment));
    return this.hosting.read(ownerId, siteId);
  }

  /** The fix's job: up to `FIX_ATTEMPTS` attempts, each learning from the run before. */
  private async attempts(job: RunningJob, project: ProjectWithApp, firstFailure: DeployRunRecord): Promise<void> {
    const ownerId = project.owner_id;
    const siteId = project.id;
    const say = (line: string) => job.write(`${line}\n`);
    const env = await this.containers.openEnv(siteId, project.deployment);
    // The run's log and reason are masked already; the whole prompt is masked again, in case.
    const mask = createSecretMasker(Object.values(env));
    const envNames = Object.keys(env).sort();

    say(`Reading ${project.repository.url} at ${firstFailure.ref} …`);
    const facts = await readSourceFacts(this.repoAccess, ownerId, project.repository.url, firstFailure.ref, join(this.config.dataDir, "tmp", "fixes"), job.id);
    const packageJson = facts.tree.read("package.json");
    let failed = firstFailure;
    let current: FailingDockerfile = failingDockerfile(failed, project.deployment.setup, facts, project.deployment.override?.dockerfile ?? null, this.config.baseImages, envNames);
    const earlier: string[] = [];
    const problemOf = (run: DeployRunRecord) => run.diagnosis?.title ?? run.reason ?? "the run failed";
    let lastProblem = problemOf(failed);

    for (let attempt = 1; attempt <= FIX_ATTEMPTS; attempt += 1) {
      const deployment = await this.stillFailed(siteId, failed.run_id);
      const label = `Attempt ${attempt} of ${FIX_ATTEMPTS}`;
      let plan: AttemptPlan;
      if (this.model) {
        say(`${label}: asking the model (${this.model.modelId}) for a corrected Dockerfile …`);
        const material: FixMaterial = {
          attempt,
          attempts: FIX_ATTEMPTS,
          setup: deployment.setup,
          dockerfile: current.text,
          origin: current.origin,
          diagnosis: failed.diagnosis,
          reason: failed.reason,
          logTail: failed.log_tail,
          envNames,
          files: facts.tree.paths(),
          packageJson,
          earlier,
        };
        const answer = await askModelForDockerfile(this.model, mask(fixPrompt(material)), job.signal);
        if ("refused" in answer) {
          say(`${label} failed: ${answer.refused}`);
          lastProblem = answer.refused;
          earlier.push(`attempt ${attempt}: your answer was refused, nothing was built: ${answer.refused}`);
          continue;
        }
        plan = { says: "the model's Dockerfile", dockerfile: answer.dockerfile };
        say(`The model wrote:\n${mask(answer.dockerfile)}`);
      } else {
        const rule = ruleFix(failed.diagnosis, deployment.setup);
        const edited = rule?.edit ? (current.text === null ? null : rule.edit(current.text)) : undefined;
        if (!rule || edited === null) {
          throw new RepositeError(
            422,
            `The fix stopped after ${attempt - 1} attempt${attempt === 2 ? "" : "s"}: no fix without a language model applies to this failure (${problemOf(failed)}).`,
            "fix_failed",
          );
        }
        plan = { says: rule.says, ...(edited !== undefined ? { dockerfile: edited } : {}), ...(rule.setup ? { setup: rule.setup } : {}) };
        say(`${label}: ${rule.says}.`);
      }

      if (plan.setup) {
        await this.hosting.setup(ownerId, siteId, plan.setup);
        say(`Setup changed: port ${plan.setup.port}.`);
      }
      // A plain deploy when the Dockerfile it builds is the one to build: no override is kept then.
      const dockerfile = plan.dockerfile ?? (current.plain || current.text === null ? undefined : current.text);
      const started = await this.hosting.startRun(ownerId, siteId, dockerfile !== undefined ? { dockerfile } : undefined);
      say(`${label}: deploying as run ${started.run_id} (its job: ${started.job_id}) …`);
      const ended = await followRun(this.jobs, this.runs, { ownerId, siteId, jobId: started.job_id, runId: started.run_id }, job.write, job.signal);
      if (job.signal.aborted || !ended) return;
      if (ended.status === "done") {
        if (dockerfile !== undefined) await this.keepOverride(siteId, dockerfile, ended.run_id);
        say(
          dockerfile !== undefined
            ? `${label} worked: the app runs. The service keeps this Dockerfile and later deploys build it (DELETE …/deployment/override builds the repository's own again).`
            : `${label} worked: the app runs.`,
        );
        return;
      }
      lastProblem = problemOf(ended);
      say(`${label} failed: ${lastProblem}`);
      earlier.push(`attempt ${attempt} (${plan.says}) failed: ${[ended.diagnosis?.title, ended.reason].filter(Boolean).join(" — ")}`);
      failed = ended;
      if (dockerfile !== undefined) current = { text: dockerfile, origin: `the Dockerfile attempt ${attempt} wrote`, plain: false };
    }
    throw new RepositeError(
      422,
      `The fix did not work in ${FIX_ATTEMPTS} attempts; the last: ${lastProblem.replace(/\.?$/, ".")} Nothing was kept: deploys build what they built before.`,
      "fix_failed",
    );
  }

  /**
   * The deployment, when nothing else happened since `runId` failed; the fix stops when another
   * deploy started (or the app went) meanwhile.
   */
  private async stillFailed(siteId: string, runId: string): Promise<DeploymentRecord> {
    const deployment = (await this.deployments.get(siteId));
    if (!deployment) throw conflict("The app was removed during the fix.", "fix_failed");
    if (deployment.run || deployment.last_run_id !== runId) throw conflict("Another deploy of this app started during the fix, so the fix stopped.", "fix_failed");
    return deployment;
  }

  private async keepOverride(siteId: string, dockerfile: string, runId: string): Promise<void> {
    await this.deployments.update(siteId, (deployment) => ({ ...deployment, override: { dockerfile, run_id: runId, saved_at: this.now() }, updated_at: this.now() }));
  }


  private now(): string {
    return formatTimestamp(this.clock.now());
  }
}
