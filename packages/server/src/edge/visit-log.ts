import { createSocket } from "node:dgram";
import type { VisitCounter } from "@reposite/core";

/** Reposite's end of nginx's visit log: a loopback UDP port nginx sends syslog lines to. */
export interface VisitLog {
  port: number;
  close(): Promise<void>;
}

/**
 * Counts the pages nginx served from files, as the Node runtime counts the ones it serves: nginx
 * logs each file it answered 200 or 304 (`log_format reposite_visits`: slug, method, URI, user
 * agent) over syslog, and each line goes to the same `VisitCounter`, which leaves out bots and
 * non-pages. No request reaches Node per page. UDP on loopback: Node has no Unix datagram sockets,
 * and nginx never waits on a syslog send.
 */
export async function startVisitLog(visits: VisitCounter, siteIdOf: (slug: string) => string | undefined): Promise<VisitLog> {
  const socket = createSocket("udp4");
  socket.on("message", (message) => {
    // `<190>Nov 27 10:00:00 reposite: <slug> <method> <uri> <user agent>` (nohostname).
    const line = message.toString("utf8");
    const start = line.indexOf("reposite: ");
    if (start === -1) return;
    const [slug = "", method = "", uri = "", ...agent] = line.slice(start + "reposite: ".length).split(" ");
    const siteId = siteIdOf(slug);
    if (!siteId) return;
    const query = uri.indexOf("?");
    const userAgent = agent.join(" ").trim();
    visits.count(siteId, { method, path: query === -1 ? uri : uri.slice(0, query), userAgent: userAgent && userAgent !== "-" ? userAgent : undefined });
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => (socket.off("error", reject), resolve()));
  });
  socket.on("error", (error) => console.error("[reposite] [edge] the visit log failed:", error));
  return {
    port: socket.address().port,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
