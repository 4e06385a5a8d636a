/**
 * Event channel on which `ProjectStore` says a project record was written or removed (`{ id }`).
 * `ProjectCache` listens, so what a site's host decides from memory (the app gate) follows every
 * change, on every replica that shares the events port.
 */
export const PROJECT_CHANGED_CHANNEL = "projects:changed";
export interface ProjectChanged {
  id: string;
}
