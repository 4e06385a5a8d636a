import type { DiscourseOptions } from "@reposite/core";

/**
 * The operator's Discourse from the environment: REPOSITE_DISCOURSE_URL (the forum's address) and
 * REPOSITE_DISCOURSE_SECRET (its `discourse_connect_secret`). Both or neither; a half or malformed
 * setting stops the server at start-up rather than at a member's first visit.
 */
export function discourseFromEnv(env: NodeJS.ProcessEnv = process.env): DiscourseOptions | null {
  const url = env.REPOSITE_DISCOURSE_URL?.trim();
  const secret = env.REPOSITE_DISCOURSE_SECRET ?? "";
  if (!url && !secret) return null;
  if (!url || !secret) {
    throw new Error("[reposite] REPOSITE_DISCOURSE_URL and REPOSITE_DISCOURSE_SECRET go together: set both, or neither.");
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`[reposite] REPOSITE_DISCOURSE_URL must be the forum's address, such as https://forum.example.com, not "${url}".`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new Error(`[reposite] REPOSITE_DISCOURSE_URL must start with https:// (or http:// for a local test), not "${url}".`);
  }
  if (secret.length < 10) throw new Error("[reposite] REPOSITE_DISCOURSE_SECRET is too short: Discourse asks for at least 10 characters.");
  return { url: parsed.href.replace(/\/+$/, ""), secret };
}
