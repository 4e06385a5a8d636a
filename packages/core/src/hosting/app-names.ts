/**
 * Names and labels of what an app owns on the runtime. Labels are how a restarted server finds its
 * apps again, so they hold everything recovery needs; names only have to be unique and valid.
 */
export const LABEL_ROLE = "dev.reposite.role";
export const LABEL_SITE = "dev.reposite.site";
export const LABEL_RUN = "dev.reposite.run";

/** Labels of every container, image and volume of one app (plus the server's own `extra`). */
export function appLabels(siteId: string, extra: Record<string, string>, runId?: string): Record<string, string> {
  return { ...extra, [LABEL_ROLE]: "app", [LABEL_SITE]: siteId, ...(runId ? { [LABEL_RUN]: runId } : {}) };
}

/** What recovery lists: every app container of this server. */
export function allAppsLabels(extra: Record<string, string>): Record<string, string> {
  return { ...extra, [LABEL_ROLE]: "app" };
}

/** Image references must be lower case. */
const lower = (id: string) => id.toLowerCase().replace(/[^a-z0-9_.-]/g, "-");

export const imageTag = (siteId: string, runId: string) => `reposite-app/${lower(siteId)}:${lower(runId)}`;
/** One per container made (deploys, restarts, starts): `<site>-<what made it>`. */
export const containerName = (siteId: string, suffix: string) => `reposite-${lower(siteId)}-${lower(suffix)}`;
export const volumeName = (siteId: string) => `reposite-data-${lower(siteId)}`;
/** Each app joins a network of its own, so apps cannot reach each other. */
export const networkName = (siteId: string) => `reposite-app-${lower(siteId)}`;
