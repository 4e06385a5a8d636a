import type { RequestOptions } from "../client.js";
import { RepositeSDKError } from "../errors.js";
import { route } from "../internal/route.js";
import { APIResource } from "../resource.js";
import type {
  DeployFollowOptions,
  DeploymentSetupInput,
  DeploymentView,
  DeployStarted,
  EnvView,
  FixStarted,
  MetricsView,
  RepoCheckResult,
  ResourcesView,
  RunDetailView,
  RunView,
} from "../types.js";

/** The app's environment: names with masked values; values are never shown back. */
export class DeploymentEnv extends APIResource {
  /** Every name, every value masked. `GET /app/sites/{site_id}/deployment/env`. */
  async get(siteId: string, options?: RequestOptions): Promise<EnvView> {
    return this.call(route("deployment.env.get", { site_id: siteId }), options);
  }

  /**
   * Adds or changes the keys given; the rest stay. Answers at once; a running app then restarts with
   * them in the background, and `deployment.get(...).last_operation` (`env_restart`: `under_way`,
   * `done` or `failed` with a diagnosis) shows how it went. With `build_mode: "auto"` they also
   * reach the build. `PUT /app/sites/{site_id}/deployment/env`.
   * `null` removes a key (see `unset`). Errors: `422` `invalid_request` for a name or value refused.
   */
  async set(siteId: string, env: Record<string, string | null>, options?: RequestOptions): Promise<EnvView> {
    return this.call(route("deployment.env.set", { site_id: siteId }), { ...options, body: { env } });
  }

  /** Removes the keys named; the rest stay. `PUT …/deployment/env` with each key set to null. */
  async unset(siteId: string, keys: string[], options?: RequestOptions): Promise<EnvView> {
    return this.set(siteId, Object.fromEntries(keys.map((key) => [key, null])), options);
  }
}

/** The app's deploys: the last 20, and one with the end of its log. */
export class DeploymentRuns extends APIResource {
  /** The last 20 deploys, newest first. `GET /app/sites/{site_id}/deployment/runs`. */
  async list(siteId: string, options?: RequestOptions): Promise<RunView[]> {
    return this.call(route("deployment.runs.list", { site_id: siteId }), options);
  }

  /** One deploy with the kept end of its log (`log_tail`). `GET /app/sites/{site_id}/deployment/runs/{run_id}`. */
  async get(siteId: string, runId: string, options?: RequestOptions): Promise<RunDetailView> {
    return this.call(route("deployment.runs.get", { site_id: siteId, run_id: runId }), options);
  }
}

/**
 * A project's hosted app (served at `/app/` on the project's address). Setting up, deploying,
 * fixing, starting, restarting and resetting data answer `PaymentRequiredError`
 * (`payment_required`) until app hosting is paid for; reading, stopping, logs, metrics, settings
 * and removing always work. A server without app hosting answers `503` `hosting_unavailable`.
 */
export class Deployment extends APIResource {
  /** The app's environment: `get`, `set`, `unset`. */
  readonly env = new DeploymentEnv(this.client);
  /** The app's deploys: `list`, `get`. */
  readonly runs = new DeploymentRuns(this.client);

  /**
   * Reads the repository without building it: Dockerfile facts, how `auto` would build it, the
   * settings the app asks for. `GET /app/sites/{site_id}/repo-check?ref=&path=`.
   */
  async repoCheck(siteId: string, params: { ref?: string; path?: string } = {}, options?: RequestOptions): Promise<RepoCheckResult> {
    return this.call(route("repoCheck.get", { site_id: siteId }), { ...options, query: { ref: params.ref, path: params.path } });
  }

  /**
   * Sets the app up, or changes the fields sent (the rest stay). A project without an address gets
   * a slug from its name. `PUT /app/sites/{site_id}/deployment` → `201` created, `200` changed.
   */
  async setup(siteId: string, setup: DeploymentSetupInput = {}, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.setup", { site_id: siteId }), { ...options, body: setup });
  }

  /** The setup, `status`, `url`, and `last_run` (with `diagnosis` when it failed). `GET /app/sites/{site_id}/deployment`. */
  async get(siteId: string, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.get", { site_id: siteId }), options);
  }

  /**
   * Starts a deploy. `POST /app/sites/{site_id}/deployment/deploy` → `202` `{job_id, run_id}`; the
   * job streams the build log (`jobs.stream`) and has ended when `finished_at` is set. Errors:
   * `409` `not_configured`, `storage_full`, `run_under_way`; `429` `build_limit`.
   */
  async deploy(siteId: string, options?: RequestOptions): Promise<DeployStarted> {
    return this.call(route("deployment.deploy", { site_id: siteId }), options);
  }

  /**
   * Deploys and follows the deploy to its end: every event of its job stream goes to `onEvent`
   * (the build log in `delta`s), and once the job has ended (`finished_at`) the deployment is
   * read and answered. A failed deploy is answered too: check `status` and `last_run.diagnosis`
   * (the previous build keeps serving).
   *
   * @example
   * const app = await client.deployment.deployAndFollow(siteId, {
   *   onEvent: (event) => event.type === "delta" && process.stdout.write(event.t),
   * });
   * if (app.status !== "running") console.error(app.last_run?.diagnosis?.title);
   */
  async deployAndFollow(siteId: string, options: DeployFollowOptions & RequestOptions = {}): Promise<DeploymentView> {
    const { onEvent, ...requestOptions } = options;
    const { job_id } = await this.deploy(siteId, requestOptions);
    let finished = false;
    const streamOptions = requestOptions.signal ? { signal: requestOptions.signal } : {};
    for await (const event of this.client.jobs.stream(job_id, streamOptions)) {
      onEvent?.(event);
      if ((event.type === "done" || event.type === "error") && event.job.finished_at) finished = true;
    }
    if (!finished) {
      // The stream ended on done/error without `finished_at`: ask the job itself until it says so.
      for (let job = await this.client.jobs.get(job_id, requestOptions); !job.finished_at; job = await this.client.jobs.get(job_id, requestOptions)) {
        await this.client.backoff(500, requestOptions.signal);
      }
    }
    return this.get(siteId, requestOptions);
  }

  /**
   * After a failed deploy: the AI (or, without one, the rules the diagnosis knows) fixes the
   * Dockerfile and deploys again, up to three attempts; the fix is kept by the service, the
   * repository never changes. `POST /app/sites/{site_id}/deployment/fix` → `202` with the fix's job.
   */
  async fix(siteId: string, options?: RequestOptions): Promise<FixStarted> {
    return this.call(route("deployment.fix", { site_id: siteId }), options);
  }

  /** Forgets the fix; deploys build the repository's own Dockerfile again. `DELETE /app/sites/{site_id}/deployment/override`. */
  async removeOverride(siteId: string, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.override.remove", { site_id: siteId }), options);
  }

  /** The app's output, up to 5000 lines (`tail`). `GET /app/sites/{site_id}/deployment/logs?tail=`. */
  async logs(siteId: string, params: { tail?: number } = {}, options?: RequestOptions): Promise<string> {
    return this.call(route("deployment.logs", { site_id: siteId }), { ...options, query: { tail: params.tail }, responseType: "text" });
  }

  /** CPU, memory, network and `storage` now. `GET /app/sites/{site_id}/deployment/metrics`. */
  async metrics(siteId: string, options?: RequestOptions): Promise<MetricsView> {
    return this.call(route("deployment.metrics", { site_id: siteId }), options);
  }

  /** Memory and disk now, and the sizes that can be bought. `GET /app/sites/{site_id}/deployment/resources`. */
  async resources(siteId: string, options?: RequestOptions): Promise<ResourcesView> {
    return this.call(route("deployment.resources", { site_id: siteId }), options);
  }

  /** Restarts the app's container. `POST /app/sites/{site_id}/deployment/restart`. */
  async restart(siteId: string, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.restart", { site_id: siteId }), options);
  }

  /** Stops the app; `/app/` answers that it is stopped. `POST /app/sites/{site_id}/deployment/stop`. */
  async stop(siteId: string, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.stop", { site_id: siteId }), options);
  }

  /** Starts a stopped app. `POST /app/sites/{site_id}/deployment/start`. */
  async start(siteId: string, options?: RequestOptions): Promise<DeploymentView> {
    return this.call(route("deployment.start", { site_id: siteId }), options);
  }

  /**
   * Empties the app's data volume and starts it clean; cannot be undone. `confirm` must be the
   * app's slug (`deployment.get(…).slug`). `POST /app/sites/{site_id}/deployment/reset-data`.
   * Errors: `422` `confirm_mismatch`; `409` `no_volume`, `not_deployed`.
   */
  async resetData(siteId: string, params: { confirm: string }, options?: RequestOptions): Promise<DeploymentView> {
    if (typeof params?.confirm !== "string" || params.confirm === "") {
      throw new RepositeSDKError("resetData needs confirm: the app's slug (it empties the data and cannot be undone).");
    }
    return this.call(route("deployment.reset-data", { site_id: siteId }), { ...options, body: { confirm: params.confirm } });
  }

  /** Removes the app: its container, image and data. `DELETE /app/sites/{site_id}/deployment` → `204`. */
  async remove(siteId: string, options?: RequestOptions): Promise<void> {
    return this.call(route("deployment.remove", { site_id: siteId }), options);
  }
}
