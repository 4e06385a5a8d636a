/**
 * Event channel on which `ProjectStore` says a project record was written or removed (`{ id }`),
 * and `DeploymentStore` that the project's app record was.
 * `ProjectCache` listens, so what a site's host decides from memory (the app gate) follows every
 * change, on every replica that shares the events port.
 */
export const PROJECT_CHANGED_CHANNEL = "projects:changed";
export interface ProjectChanged {
  id: string;
  /** Set when the owner's list changed too (a project made or removed). */
  owner_id?: string;
}
