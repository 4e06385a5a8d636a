import {
  CLOCK,
  DESIGNS,
  DiscourseHandOff,
  findDesign,
  GenerationPlanStore,
  logoSource,
  renderSitePage,
  RepositeError,
  type Clock,
  type Design,
  type DiscourseOptions,
  type ProjectRecord,
  type PublishedSiteInfo,
  type Reposite,
  type SafeHtml,
  type SiteContext,
  type Wizard,
} from "@reposite/core";
import type { H3Event } from "h3";
import { assertSameOrigin } from "../../http/browser-session.js";
import { clientAddress } from "../../http/client-address.js";
import { readFormBody } from "../../http/form-body.js";
import { assertMemberCsrf, currentMember, endMemberSession, sitePath, startMemberSession, type CurrentMember } from "./member-session.js";
import { accountBody, authBody, forumBody, messageBody, SITE_PAGE_HEADERS, threadBody, type AuthForm, type SignedIn } from "./site-pages.js";

export interface SiteDynamicOptions {
  /** Believe `X-Forwarded-For` for the client's address (rate limits); only behind a proxy you control. */
  trustProxy?: boolean;
  /**
   * The operator's Discourse: `/community` then leads there, members through the service host,
   * which signs them in to Discourse (routes/discourse.ts).
   */
  discourse?: DiscourseOptions | null;
}

/**
 * Answers one dynamic request of a published site (the runtime has found the site by its host), or
 * undefined for a path that is not dynamic, which the runtime then answers from the site's files.
 */
export type SiteDynamicHandler = (event: H3Event, site: PublishedSiteInfo) => Promise<Response | undefined>;

/**
 * Whether the runtime hands a path to the dynamic handler: everything under `/auth/`, `/community`
 * and `/app`. `GET /auth` itself is the published sign-in page; when a site has none (a community
 * without a sign-in page), hand `/auth` over too and the handler draws the forms in the design.
 */
export function isDynamicSitePath(pathname: string): boolean {
  return (
    pathname.startsWith("/auth/") ||
    pathname === "/community" ||
    pathname.startsWith("/community/") ||
    pathname === "/app" ||
    pathname.startsWith("/app/")
  );
}

/** Per request: the site, its project as it is now, the design and the page context. */
interface SiteRequest {
  event: H3Event;
  site: PublishedSiteInfo;
  project: ProjectRecord | null;
  design: Design;
  context: SiteContext;
  url: URL;
  current: CurrentMember | null;
}


function page(markup: string, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(markup, { status, headers: { ...SITE_PAGE_HEADERS, ...extra } });
}

/** After a form post: GET the page that shows the result (POST-redirect-GET). */
function seeOther(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
}

const who = (current: CurrentMember | null): SignedIn | null => (current ? { email: current.member.email, csrf: current.session.csrf } : null);

function signInPath(next: string): string {
  return `/auth?next=${encodeURIComponent(next)}`;
}

/**
 * The handler for `/auth/*`, `/community*` and `/app*` on a site host. Pages are drawn in the
 * site's design; errors are pages too, never JSON. Every POST must come from the site itself
 * (Origin, or Referer, names the site's scheme, host and port); forms of signed-in pages also
 * carry the session's CSRF token.
 */
export function createSiteDynamicHandler(reposite: Reposite, options: SiteDynamicOptions = {}): SiteDynamicHandler {
  const { members, forum } = reposite;
  const clock = reposite.container.resolve<Clock>(CLOCK);
  const discourseHandOff = reposite.container.resolve(DiscourseHandOff);
  const plans = reposite.container.resolve(GenerationPlanStore);

  function render(req: Pick<SiteRequest, "design" | "context">, title: string, body: SafeHtml, status = 200, extra: Record<string, string> = {}, noindex = true): Response {
    return page(renderSitePage(req.design, req.context, { title, bodyHtml: body, noindex }), status, extra);
  }

  function errorPage(req: SiteRequest, error: RepositeError): Response | undefined {
    const extra: Record<string, string> = {};
    if (typeof error.details?.retry_after === "number") extra["retry-after"] = String(error.details.retry_after);
    if (error.status === 404) return NOT_MINE;
    const title = error.status === 403 ? "Not allowed" : error.status === 429 ? "Too many attempts" : "Something is not right";
    return render(req, title, messageBody(title, error.message), error.status, extra);
  }

  /** Where a signed-in person goes: the page they came for, else the app (when the site sends members there) or home. */
  function destination(req: SiteRequest, next: string | null): string {
    return next ?? (req.project?.auth_redirect_to_app ? "/app/" : "/");
  }

  /** `next` from the form, the post's own query, or the sign-in page the form was on (`/auth?next=…`). */
  function nextOf(req: SiteRequest, form: URLSearchParams): string | null {
    const direct = sitePath(form.get("next")) ?? sitePath(req.url.searchParams.get("next"));
    if (direct) return direct;
    const referer = req.event.req.headers.get("referer");
    try {
      const from = referer ? new URL(referer) : null;
      if (from && from.host === req.url.host && from.pathname === "/auth") return sitePath(from.searchParams.get("next"));
    } catch {
      // A malformed Referer names no page.
    }
    return null;
  }

  async function credentialsPost(req: SiteRequest, form: AuthForm): Promise<Response> {
    assertSameOrigin(req.event, req.site.url);
    const body = await readFormBody(req.event);
    const next = nextOf(req, body);
    const email = body.get("email") ?? "";
    const password = body.get("password") ?? "";
    const address = clientAddress(req.event, options.trustProxy ?? false);
    try {
      const member =
        form === "sign-up"
          ? await members.register(req.site.site_id, { email, password }, { address })
          : await members.signIn(req.site.site_id, { email, password }, { address });
      await startMemberSession(members, req.event, req.site, member.id);
      return seeOther(destination(req, next));
    } catch (error) {
      if (!RepositeError.isInstance(error) || ![401, 409, 422, 429].includes(error.status)) throw error;
      const message = pageMessage(error);
      const extra: Record<string, string> = typeof error.details?.retry_after === "number" ? { "retry-after": String(error.details.retry_after) } : {};
      const title = form === "sign-in" ? "Sign in" : "Create an account";
      return render(req, title, authBody({ failed: form, error: message, email: email.trim(), next }), error.status, extra);
    }
  }

  async function signOut(req: SiteRequest): Promise<Response> {
    assertSameOrigin(req.event, req.site.url);
    const body = await readFormBody(req.event);
    if (req.current) assertMemberCsrf(req.current, body.get("csrf"));
    await endMemberSession(members, req.event, req.site);
    return seeOther(sitePath(body.get("next")) ?? "/");
  }

  async function account(req: SiteRequest): Promise<Response> {
    if (!req.current) return redirect(signInPath("/auth/account"));
    return render(req, "Your account", accountBody({ who: who(req.current)!, community: req.site.community, app: req.project?.auth_redirect_to_app === true }));
  }

  async function forumIndex(req: SiteRequest, draft?: { title: string; body: string }, error?: string, status = 200): Promise<Response> {
    const threads = await forum.listThreads(req.site);
    return render(req, "Community", forumBody({ siteName: req.site.name, threads, who: who(req.current), draft, error }), status, {}, false);
  }

  async function newThread(req: SiteRequest): Promise<Response> {
    assertSameOrigin(req.event, req.site.url);
    const body = await readFormBody(req.event);
    if (!req.current) return seeOther(signInPath("/community"));
    assertMemberCsrf(req.current, body.get("csrf"));
    const draft = { title: body.get("title") ?? "", body: body.get("body") ?? "" };
    try {
      const thread = await forum.createThread(req.site, req.current.member, draft);
      return seeOther(`/community/t/${thread.id}`);
    } catch (error) {
      if (!RepositeError.isInstance(error) || (error.status !== 422 && error.status !== 429)) throw error;
      return forumIndex(req, draft, pageMessage(error), error.status);
    }
  }

  async function showThread(req: SiteRequest, threadId: string, draft?: { body: string }, error?: string, status = 200): Promise<Response> {
    const { thread, replies } = await forum.getThread(req.site, threadId);
    return render(req, thread.title, threadBody({ thread, replies, who: who(req.current), draft, error }), status, {}, false);
  }

  async function reply(req: SiteRequest, threadId: string): Promise<Response> {
    assertSameOrigin(req.event, req.site.url);
    const body = await readFormBody(req.event);
    if (!req.current) return seeOther(signInPath(`/community/t/${threadId}`));
    assertMemberCsrf(req.current, body.get("csrf"));
    const draft = { body: body.get("body") ?? "" };
    try {
      const created = await forum.reply(req.site, req.current.member, threadId, draft);
      return seeOther(`/community/t/${threadId}#${created.id}`);
    } catch (error) {
      if (!RepositeError.isInstance(error) || ![409, 422, 429].includes(error.status)) throw error;
      return showThread(req, threadId, draft, pageMessage(error), error.status);
    }
  }

  /**
   * Discourse asks the service host who is signing in (it has one `discourse_connect_url` for all
   * sites), and only this host knows the member: it sends them there with a short-lived ticket.
   */
  async function toDiscourse(req: SiteRequest, discourse: DiscourseOptions): Promise<Response> {
    if (!req.current) return redirect(new URL("/", discourse.url).href);
    const ticket = await discourseHandOff.issue(req.site.site_id, req.current.member.id);
    return redirect(`${reposite.config.baseUrl}/community/discourse?ticket=${encodeURIComponent(ticket)}`);
  }

  async function community(req: SiteRequest, method: string, path: string): Promise<Response | undefined> {
    if (!req.site.community) return NOT_MINE;
    // Discourse is the forum: members arrive signed in, everyone else reads as a guest.
    if (options.discourse) return toDiscourse(req, options.discourse);
    if (path === "/community") return isRead(method) ? forumIndex(req) : methodNotAllowed(req);
    if (path === "/community/new") return method === "POST" ? newThread(req) : methodNotAllowed(req);
    const thread = /^\/community\/t\/([^/]+)(\/reply)?$/.exec(path);
    if (thread) {
      const id = thread[1]!;
      if (thread[2]) return method === "POST" ? reply(req, id) : methodNotAllowed(req);
      return isRead(method) ? showThread(req, id) : methodNotAllowed(req);
    }
    return NOT_MINE;
  }

  /**
   * `/app/*` seldom gets here: the node-level app proxy (app-proxy/, wired by `startServer` in
   * front of h3) answers a site's `/app` with its members gate. This is what an h3 app alone
   * (`createApp` without the proxy) answers: no app behind it.
   */
  function app(req: SiteRequest): Response {
    return render(
      req,
      "App not available",
      messageBody("App not available", "No app is deployed for this site yet. Try again later."),
      503,
      { "retry-after": "300" },
    );
  }

  async function route(req: SiteRequest): Promise<Response | undefined> {
    const method = req.event.req.method.toUpperCase();
    const raw = req.url.pathname;
    if (raw === "/app" || raw.startsWith("/app/")) return app(req);
    // `/community/` and `/auth/account/` are the same pages as without the slash.
    const path = raw.length > 1 ? raw.replace(/\/+$/, "") : raw;
    if (path === "/auth") return isRead(method) ? render(req, "Sign in", authBody({ next: sitePath(req.url.searchParams.get("next")) })) : methodNotAllowed(req);
    if (path === "/auth/sign-in") return method === "POST" ? credentialsPost(req, "sign-in") : redirect("/auth");
    if (path === "/auth/sign-up") return method === "POST" ? credentialsPost(req, "sign-up") : redirect("/auth");
    if (path === "/auth/sign-out") return method === "POST" ? signOut(req) : redirect("/auth/account");
    if (path === "/auth/account") return isRead(method) ? account(req) : methodNotAllowed(req);
    if (path === "/community" || path.startsWith("/community/")) return community(req, method, path);
    return NOT_MINE;
  }

  function methodNotAllowed(req: SiteRequest): Response {
    const title = "Not available";
    return render(req, title, messageBody(title, "This page cannot be used that way."), 405);
  }

  return async (event, site) => {
    if (event.url.pathname !== "/auth" && !isDynamicSitePath(event.url.pathname)) return undefined;
    let req: SiteRequest | undefined;
    try {
      const project = await projectOf(reposite, site);
      const plan = project ? await plans.get(project.id) : null;
      req = {
        event,
        site,
        project,
        design: findDesign(site.design) ?? (project ? findDesign(project.design) : undefined) ?? DESIGNS[0]!,
        context: siteContext(site, project, plan, clock),
        url: new URL(event.req.url),
        current: await currentMember(members, event, site),
      };
      return await route(req);
    } catch (error) {
      if (req && RepositeError.isInstance(error)) return errorPage(req, error);
      console.error(`[reposite] [site] ${event.req.method} ${event.url.pathname} on ${site.slug} failed:`, error);
      const shell = req ?? { design: findDesign(site.design) ?? DESIGNS[0]!, context: siteContext(site, null, null, clock) };
      const title = "Something went wrong";
      return render(shell, title, messageBody(title, "Something went wrong on our side. Try again in a moment."), 500);
    }
  };
}

/**
 * Not found: left to the runtime, which answers with the site's published 404 page, the same as
 * for any other unknown path.
 */
const NOT_MINE = undefined;

const isRead = (method: string) => method === "GET" || method === "HEAD";

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".");

/** A service message as a sentence for a page: validation messages name their field first, which reads oddly there. */
function pageMessage(error: RepositeError): string {
  return error.status === 422 ? capitalise(error.message.replace(/^[\w.]+: /, "")) : error.message;
}

/** The site's project as it is now (auth_redirect_to_app, logo, colour mode), or null when it was deleted. */
async function projectOf(reposite: Reposite, site: PublishedSiteInfo): Promise<ProjectRecord | null> {
  try {
    return await reposite.projects.getOwned(site.owner_id, site.site_id);
  } catch (error) {
    if (RepositeError.isInstance(error) && error.status === 404) return null;
    throw error;
  }
}

/** What the design's frame needs: the published menu and forum switch, the project's logo and look. */
function siteContext(site: PublishedSiteInfo, project: ProjectRecord | null, plan: Wizard | null, clock: Clock): SiteContext {
  return {
    name: site.name,
    logoUrl: project ? logoSource(project) : "",
    // The look the site was published with, so these pages match its others until the next publish.
    colorMode: site.color_mode ?? project?.color_mode ?? "",
    type: plan?.mode ?? "landing",
    repositoryUrl: project?.repository.url ?? "",
    appPath: "/app/",
    pages: site.pages,
    community: site.community,
    year: clock.now().getUTCFullYear(),
  };
}
