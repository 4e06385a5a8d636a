import type { AppOperationView, DeploymentView } from "@reposite/contract";
import type { DeploymentStatus } from "../projects/deployment.js";
import type { DeployRunRecord, RunStatus } from "./deploy-run.js";
import type { DeploymentSetup } from "./deployment-setup.js";

/** The container an app runs in (or stopped in), as the deployment remembers it. */
export interface AppContainer {
  id: string;
  name: string;
  /** The image it was made from (this app's own tag). */
  image: string;
  /** A bare box: kept up by a keep-alive command, up once it runs (nothing to probe). */
  keep_alive: boolean;
  /** Where it answers from the host while it runs. */
  host: string;
  port: number;
  /** The memory it was given (the app's limit when it was launched); missing on records from before it was kept. */
  memory_mb?: number;
  /** On an orchestrating runtime: the image reference it runs (a registry digest reference), for removal after a restart. */
  image_ref?: string;
  /** On an orchestrating runtime: the network to be on to reach `host` (`AppAddress.network`); absent when the host reaches it. */
  network?: string | null;
}

/** A change of the app's container outside a deploy (`AppChanges`), as the deployment keeps it; `last_operation` shows it. */
export interface AppOperationRecord extends AppOperationView {
  /** Tells this change from a later one of the same app (a second env change supersedes the first). */
  id: string;
  /** The container serving when it began: a restarted server sees from it whether traffic had switched already. */
  replaces: string | null;
}

/**
 * A project's app, in a record of its own (`deployments:<site_id>`, `DeploymentStore`), so a
 * deploy and a project write (a rename, a generation) never wait on one lock. Changed only
 * through `DeploymentStore.modify`, under the app's lock.
 */
export interface DeploymentRecord {
  /**
   * The app's own state: `configured` (never ran), `running`, `stopped` or `failed`. While a run
   * is under way the deployment shows the run's `building`/`starting` instead (`shownStatus`), and
   * the previous container, if any, keeps serving.
   */
  status: DeploymentStatus;
  /** `<site url>/app/`; moves with the project's address. */
  url: string;
  setup: DeploymentSetup;
  /** Env values by name, each sealed with the server's key (`SecretBox`, context `envContext`). */
  env: Record<string, string>;
  /** The container serving now, or stopped; null before the first successful run. */
  container: AppContainer | null;
  last_run_id: string | null;
  /** The run under way (queued, building or starting), or null. */
  run: { run_id: string; status: RunStatus } | null;
  /** The app's container was last killed for using more memory than its limit. */
  last_exit_oom: boolean;
  /** A Dockerfile that `POST …/deployment/fix` made work, used by later deploys instead of the repository's. */
  override?: { dockerfile: string; run_id: string; saved_at: string } | null;
  /** Why the service stopped the app (its disk went over the limit), shown by the read; null when the owner stopped it or it runs. */
  stopped_reason?: string | null;
  /** The last env restart or data reset; one `under_way` is finished by the next server start. */
  operation?: AppOperationRecord | null;
  created_at: string;
  updated_at: string;
}

/** The status a read shows: the run's while it builds or starts, else the app's. */
export function shownStatus(record: Pick<DeploymentRecord, "status" | "run">): DeploymentStatus {
  const run = record.run?.status;
  return run === "building" || run === "starting" ? run : record.status;
}

/** The sealing context of one env value: a sealed value moved to another app or name does not open. */
export const envContext = (siteId: string, key: string) => `deployment-env:${siteId}:${key}`;

/** `last_run` in the deployment read, and `GET /app/sites/{site_id}/deployment`: the contract's shapes. */
export type { DeploymentView, LastRunView } from "@reposite/contract";

export function toDeploymentView(slug: string | null, record: DeploymentRecord, lastRun: DeployRunRecord | null): DeploymentView {
  return {
    ...record.setup,
    // Setups saved before root_dir existed build from the root.
    root_dir: record.setup.root_dir ?? null,
    slug,
    status: shownStatus(record),
    url: record.url,
    last_run: lastRun
      ? {
          run_id: lastRun.run_id,
          status: lastRun.status,
          finished_at: lastRun.finished_at,
          reason: lastRun.reason,
          diagnosis: lastRun.diagnosis,
          last_exit_oom: lastRun.exit_oom,
        }
      : null,
    last_exit_oom: record.last_exit_oom,
    env_keys: Object.keys(record.env).sort(),
    override: Boolean(record.override),
    stopped_reason: record.stopped_reason ?? null,
    last_operation: record.operation ? toOperationView(record.operation) : null,
  };
}

function toOperationView({ kind, status, started_at, finished_at, reason, diagnosis }: AppOperationRecord): AppOperationView {
  return { kind, status, started_at, finished_at, reason, diagnosis };
}
