import type { Project } from "@reposite/contract";
import { DESIGNS } from "@reposite/core";

/** An app's state in words, as the sites list and a site's page say it. */
export const APP_STATE_WORDS: Record<NonNullable<Project["app_status"]>, string> = {
  configured: "Set up, never deployed",
  building: "Building",
  starting: "Starting",
  running: "Running",
  stopped: "Stopped",
  failed: "Failed",
};

export const appStateWords = (status: Project["app_status"]): string => (status ? APP_STATE_WORDS[status] : "No app");

/** A design's name from its id; "" is the automatic pick. */
export function designName(id: string): string {
  if (id === "") return "Automatic";
  return DESIGNS.find((design) => design.id === id)?.name ?? id;
}

/** `YYYY-MM-DD HH:MM` UTC from the API's timestamps. */
export const shortTime = (timestamp: string): string => `${timestamp.slice(0, 16)} UTC`;
