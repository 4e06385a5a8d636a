import type { Duplex } from "node:stream";
import { DESIGNS, findDesign, renderSitePage, type CachedProject, type Clock, type DeploymentStatus, type PublishedSiteInfo, type SiteContext } from "@reposite/core";
import { messageBody, SITE_PAGE_HEADERS } from "../site-runtime/dynamic/site-pages.js";
import { plainPage } from "../site-runtime/serve-published.js";

/** An answer the proxy writes itself, on a response or (for a WebSocket upgrade) on the raw socket. */
export interface ProxyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The site and its project as the page frame needs them. */
export interface PageFrame {
  site: PublishedSiteInfo;
  project: CachedProject | null;
  /** For the footer's year, read only when a page is drawn. */
  clock: Clock;
}

function page(frame: PageFrame, status: number, title: string, message: string, extra: Record<string, string> = {}, action?: { href: string; label: string }): ProxyAnswer {
  const { site, project } = frame;
  const design = findDesign(site.design) ?? (project ? findDesign(project.design) : undefined) ?? DESIGNS[0]!;
  const context: SiteContext = {
    name: site.name,
    logoUrl: project?.logo ?? "",
    colorMode: project?.color_mode ?? "",
    type: project?.type ?? "landing",
    repositoryUrl: project?.repository_url ?? "",
    appPath: "/app/",
    pages: site.pages,
    community: site.community,
    year: frame.clock.now().getUTCFullYear(),
  };
  const body = renderSitePage(design, context, { title, bodyHtml: messageBody(title, message, action), noindex: true });
  return { status, headers: { ...SITE_PAGE_HEADERS, ...extra }, body };
}

/** What a visitor reads, and when to try again (seconds), while the app does not run. */
const NOT_RUNNING: Record<DeploymentStatus | "none", { title: string; message: string; retryAfter: number }> = {
  none: { title: "App not available", message: "No app is deployed for this site yet. Try again later.", retryAfter: 300 },
  configured: { title: "App not available", message: "No app is deployed for this site yet. Try again later.", retryAfter: 300 },
  building: { title: "App on its way", message: "The app is being built. It will answer here in a few minutes.", retryAfter: 30 },
  starting: { title: "App starting", message: "The app is starting. Try again in a few seconds.", retryAfter: 5 },
  // A running app without a target is one being switched over: it answers in a moment.
  running: { title: "App starting", message: "The app is starting. Try again in a few seconds.", retryAfter: 5 },
  stopped: { title: "App stopped", message: "The app of this site is stopped. Try again later.", retryAfter: 300 },
  failed: { title: "App not available", message: "The app of this site could not be started. Try again later.", retryAfter: 300 },
};

/** The 503 page's `Retry-After` (seconds) for an app in `status` (the nginx edge sends the same). */
export const notRunningRetryAfter = (status: DeploymentStatus | undefined): number => NOT_RUNNING[status ?? "none"].retryAfter;

/** The 502 page's `Retry-After` (seconds). */
export const NO_ANSWER_RETRY_AFTER = 5;

/** `503` with `Retry-After` while the app is not running (never deployed, building, starting, stopped, failed). */
export function notRunningPage(frame: PageFrame, status: DeploymentStatus | undefined): ProxyAnswer {
  const text = NOT_RUNNING[status ?? "none"];
  return page(frame, 503, text.title, text.message, { "retry-after": String(text.retryAfter) });
}

/** `502`: the app was meant to run but did not answer (refused the connection, or broke off before answering). */
export function noAnswerPage(frame: PageFrame): ProxyAnswer {
  return page(frame, 502, "App not answering", "The app of this site did not answer. Try again in a moment.", { "retry-after": String(NO_ANSWER_RETRY_AFTER) });
}

/** `401`: a signed-out visitor's write (or WebSocket) to an app only members may use. */
export function signInFirstPage(frame: PageFrame): ProxyAnswer {
  return page(frame, 401, "Sign in first", "Only signed-in members may use this app.", {}, { href: "/auth", label: "Sign in" });
}

/** `302` to the sign-in page, which comes back to `next` once signed in. */
export function signInRedirect(next: string): ProxyAnswer {
  return { status: 302, headers: { location: `/auth?next=${encodeURIComponent(next)}`, "cache-control": "no-store" }, body: "" };
}

/** A page in Reposite's own plain look, for when the site itself could not be read. */
export function plainAnswer(status: number, title: string, message: string): ProxyAnswer {
  const page = plainPage(status, title, message, "GET");
  return { status, headers: { "content-type": "text/html;charset=UTF-8", "cache-control": "no-store" }, body: page.body ? Buffer.from(page.body).toString("utf8") : "" };
}

const REASONS: Record<number, string> = { 302: "Found", 401: "Unauthorized", 404: "Not Found", 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable" };

/** Writes an answer on a socket whose upgrade was not let through, then closes it. */
export function writeToSocket(socket: Duplex, answer: ProxyAnswer): void {
  if (socket.destroyed || !socket.writable) return;
  const body = Buffer.from(answer.body);
  let head = `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? "Error"}\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
}
