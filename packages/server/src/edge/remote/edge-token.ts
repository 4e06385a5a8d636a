import { createHash, timingSafeEqual } from "node:crypto";

/** The control plane's side of `reposite edge`: registered (REPOSITE_EDGE_TOKEN) to turn the edge feed on. */
export interface EdgeFeedSettings {
  /** The secret every edge sends as `Authorization: Bearer <token>`. */
  token: string;
}

/** Container token of `EdgeFeedSettings` (`container.resolve<EdgeFeedSettings>(EDGE_FEED_SETTINGS)`). */
export const EDGE_FEED_SETTINGS = Symbol.for("reposite.EdgeFeedSettings");

/** Shortest edge token accepted: it guards the route table and every site's files. */
export const EDGE_TOKEN_MIN_LENGTH = 32;

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Compares in constant time (over digests, so lengths tell nothing either). */
export function isEdgeToken(sent: string | null | undefined, expected: string): boolean {
  return typeof sent === "string" && timingSafeEqual(digest(sent), digest(expected));
}

/** The token an edge sent: `Authorization: Bearer <token>`, or null. */
export function sentEdgeToken(authorization: string | null): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? null;
}
