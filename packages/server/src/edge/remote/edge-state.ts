import { readFile, rename, writeFile } from "node:fs/promises";
import type { EdgeRoutes } from "@reposite/core";

/** What a `reposite edge` applied last, kept on its disk: a restarted edge serves it at once and asks only for what changed since. */
export interface EdgeState {
  /** The feed version applied (0: none yet). */
  version: number;
  /** The route table nginx was given. */
  routes: EdgeRoutes;
  /** Published sites whose files are on disk: their site id and the version written. */
  sites: Record<string, { siteId: string; version: string }>;
  /** Certificates whose `<name>.pem` is on disk: the version (serial) written. No key is kept here. */
  certificates: Record<string, string>;
}

export const emptyEdgeState = (): EdgeState => ({ version: 0, routes: { version: 0, sitesDomain: "", apps: [], domains: [], sites: [] }, sites: {}, certificates: {} });

/** The state at `path`, or the empty one (first start, or a file that cannot be read: everything is fetched again). */
export async function readEdgeState(path: string): Promise<EdgeState> {
  try {
    const state = JSON.parse(await readFile(path, "utf8")) as EdgeState;
    // A state from before certificates were fed has none.
    if (typeof state.version === "number" && state.routes && state.sites) return { ...state, certificates: state.certificates ?? {} };
  } catch {
    // none yet
  }
  return emptyEdgeState();
}

/** Written beside and renamed over, so a kill mid-write leaves the previous state. */
export async function writeEdgeState(path: string, state: EdgeState): Promise<void> {
  await writeFile(`${path}.next`, JSON.stringify(state));
  await rename(`${path}.next`, path);
}
