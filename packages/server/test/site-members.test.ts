import { createHmac } from "node:crypto";
import { rm } from "node:fs/promises";
import { request as httpRequest, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AppRoutes,
  findDesign,
  MembersService,
  ProjectStore,
  PublishedSiteStore,
  renderNotFoundPage,
  renderPage,
  STORAGE,
  type AuthContent,
  type Clock,
  type MemberView,
  type PublishedSite,
  type RecordStorage,
  type Reposite,
  type SiteContext,
} from "@reposite/core";
import { freePort } from "@reposite/test-support";
import { H3, toNodeHandler } from "h3";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp, type AppOptions } from "../src/app.js";
import { appPath, appRequestHeaders, createAppProxy, listenForUpgrades, type AppVisitor } from "../src/app-proxy/index.js";
import {
  createSiteDynamicHandler,
  discourseFromEnv,
  isDynamicSitePath,
  MEMBER_COOKIE,
} from "../src/site-runtime/dynamic/index.js";
import type { RunningServer } from "../src/start-server.js";
import { MEMBER_GATE_CACHE_SECONDS } from "../src/edge/nginx-edge.js";
import { byNginxAlone, freshCookie, nodeRequestsFor, SHAPES, startServerIn } from "./edge-shapes.js";
import { bearer, startHarness, type Harness } from "./harness.js";

const SLUG = "rocket-cli";
const HOST = `${SLUG}.sites.test`;
const ORIGIN = `http://${HOST}`;

const AUTH: AuthContent = {
  kind: "auth",
  meta: { title: "Sign in to rocket-cli", description: "Members area" },
  title: "Welcome back",
  subtitle: "Sign in or create an account.",
  sign_in_label: "Sign in",
  sign_up_label: "Create account",
  note: "Members can join the forum.",
};

/** A published snapshot, written straight into storage the way publishing leaves it. */
function snapshot(siteId: string, ownerId: string, slug: string, options: { https?: boolean } = {}): PublishedSite {
  const design = findDesign("console")!;
  const context: SiteContext = {
    name: "rocket-cli",
    logoUrl: "",
    colorMode: "",
    type: "website",
    repositoryUrl: "https://github.com/acme/rocket-cli",
    appPath: "/app/",
    pages: ["template", "auth"],
    community: true,
    year: 2026,
  };
  const file = (path: string, body: string) => ({ path, contentType: "text/html; charset=utf-8", body, etag: `"${path}"`, lastModified: "2026-03-01T00:00:00Z" });
  return {
    site_id: siteId,
    owner_id: ownerId,
    slug,
    url: `${options.https ? "https" : "http"}://${slug}.sites.test`,
    design: design.id,
    name: "rocket-cli",
    pages: ["template", "auth"],
    community: true,
    files: {
      "/": file("/", "<!doctype html><title>rocket-cli</title><h1>rocket-cli</h1>"),
      "/auth": file("/auth", renderPage(design, AUTH, context)),
      "/404": file("/404", renderNotFoundPage(design, context)),
    },
    published_at: "2026-03-01T00:00:00Z",
    revision: 1,
  };
}

/** The real app over a socket, as the server mounts it: the node-level app proxy, then site hosts, then the API. */
async function serve(reposite: Reposite, options: AppOptions = {}): Promise<{ server: Server; port: number }> {
  const proxy = createAppProxy(reposite, { trustProxy: options.trustProxy });
  const server = createServer(proxy.listener(toNodeHandler(createApp(reposite, options))));
  listenForUpgrades(server, proxy);
  server.on("close", () => proxy.close());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

interface SiteResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Requests to a site host on the server at `port()` (Node's fetch cannot set Host, so node:http). */
function siteClient(port: () => number) {
  /** A request to the site host (Node's fetch cannot set Host, so node:http). */
  const site = (path: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; host?: string; port?: number } = {}) =>
    new Promise<SiteResponse>((resolve, reject) => {
      const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: init.port ?? port(),
          path,
          method: init.method ?? (body === undefined ? "GET" : "POST"),
          headers: {
            host: init.host ?? HOST,
            ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }),
            ...init.headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  /** A form post from the site's own page. */
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) => site(path, { form, headers: { origin: ORIGIN, ...headers } });

  const memberCookie = (response: SiteResponse): string => {
    const line = ([] as string[]).concat(response.headers["set-cookie"] ?? []).find((c) => c.startsWith(`${MEMBER_COOKIE}=`));
    if (!line) throw new Error(`no member cookie in ${JSON.stringify(response.headers)}`);
    return line;
  };
  const cookieOf = (response: SiteResponse) => memberCookie(response).split(";")[0]!;
  const csrfIn = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? "";
  return { site, post, memberCookie, cookieOf, csrfIn };
}

describe("site members over a socket", () => {
  let h: Harness;
  let server: Server;
  let port: number;
  let storage: RecordStorage;
  let token: string;
  let siteId: string;
  // Each test signs in several times: the clock moves past the sign-in rate limit's window between tests.
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  beforeEach(() => {
    offset += 16 * 60_000;
  });

  /** The API on the same socket. */
  const api = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);

  const { site, post, memberCookie, cookieOf, csrfIn } = siteClient(() => port);

  beforeAll(async () => {
    h = await startHarness("in-process", undefined, { clock });
    storage = h.reposite.container.resolve(STORAGE);
    const owner = await h.signUp("owner@example.com");
    token = owner.token;
    const project = (await (await h.call("/app/sites", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ repohost_url: "https://github.com/acme/rocket-cli" }) })).json()) as { id: string };
    siteId = project.id;
    await storage.setItem(`published-sites:${SLUG}`, snapshot(siteId, owner.accountId, SLUG));
    ({ server, port } = await serve(h.reposite));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });

  it("signs a visitor up: a host-only, HttpOnly, Lax cookie, then a signed-in page", async () => {
    const response = await post("/auth/sign-up", { email: "Ada@Example.com", password: "analytical-engine" });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe("/");
    const cookie = memberCookie(response);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).not.toMatch(/Secure/i); // an http site; see the https test below

    const account = await site("/auth/account", { headers: { cookie: cookieOf(response) } });
    expect(account.status).toBe(200);
    expect(account.headers["content-type"]).toMatch(/^text\/html/);
    expect(account.headers["cache-control"]).toBe("no-store");
    expect(account.body).toContain("Signed in as <strong>ada@example.com</strong>");
    // Drawn in the site's design: the design's class and its palette.
    expect(account.body).toContain("design-console");
    expect(account.body).toContain("--bg:#0d1117");

    const signedOut = await site("/auth/account");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.location).toBe("/auth?next=%2Fauth%2Faccount");
  });

  it("answers failed sign-ups and sign-ins with the forms and the reason, never JSON", async () => {
    const taken = await post("/auth/sign-up", { email: "ada@example.com", password: "another-password" });
    expect(taken.status).toBe(409);
    expect(taken.headers["content-type"]).toMatch(/^text\/html/);
    expect(taken.body).toContain("Someone already registered with this email. Sign in instead.");
    expect(taken.body).toContain('value="ada@example.com"');
    expect(taken.headers["set-cookie"]).toBeUndefined();

    const short = await post("/auth/sign-up", { email: "bob@example.com", password: "short" });
    expect(short.status).toBe(422);
    expect(short.body).toContain("The password needs at least 8 characters.");

    const wrong = await post("/auth/sign-in", { email: "ada@example.com", password: "difference-engine" });
    const unknown = await post("/auth/sign-in", { email: "nobody@example.com", password: "analytical-engine" });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
      expect(response.body).toContain("The email or password is wrong.");
      expect(response.body).toContain('action="/auth/sign-in"');
    }
  });

  it("signs in and goes to next when it is on this site, else home", async () => {
    const home = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    expect(home.status).toBe(303);
    expect(home.headers.location).toBe("/");
    expect(cookieOf(home)).toMatch(new RegExp(`^${MEMBER_COOKIE}=[\\w-]{40,}$`));

    const forum = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine", next: "/community" });
    expect(forum.headers.location).toBe("/community");
    for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example", "/\tx"]) {
      const response = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine", next });
      expect(response.headers.location).toBe("/");
    }
    // The published sign-in page has no `next` field: it comes from the page's own address.
    const fromPage = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" }, { referer: `${ORIGIN}/auth?next=%2Fauth%2Faccount` });
    expect(fromPage.headers.location).toBe("/auth/account");
  });

  it("refuses posts from other sites, and posts without Origin or Referer", async () => {
    const fields = { email: "mallory@example.com", password: "mallory-password" };
    const crossSite = await site("/auth/sign-up", { form: fields, headers: { origin: "http://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers["content-type"]).toMatch(/^text\/html/);
    expect(crossSite.body).toContain("This form was sent from another site, so it was refused.");
    // Another site under the same sites domain is another site too.
    const sibling = await site("/auth/sign-in", { form: fields, headers: { origin: "http://other-site.sites.test" } });
    expect(sibling.status).toBe(403);
    const bare = await site("/auth/sign-up", { form: fields });
    expect(bare.status).toBe(403);
    const members = (await (await api(`/app/sites/${siteId}/members`, bearer(token))).json()) as MemberView[];
    expect(members.map((m) => m.email)).not.toContain("mallory@example.com");
  });

  it("signs out with the session's token only, and the old cookie stops working", async () => {
    const signIn = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    const cookie = cookieOf(signIn);
    const account = await site("/auth/account", { headers: { cookie } });
    const csrf = csrfIn(account.body);
    expect(csrf).not.toBe("");

    const forged = await post("/auth/sign-out", { csrf: "wrong" }, { cookie });
    expect(forged.status).toBe(403);
    expect((await site("/auth/account", { headers: { cookie } })).status).toBe(200);

    const out = await post("/auth/sign-out", { csrf, next: "/community" }, { cookie });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe("/community");
    expect(memberCookie(out)).toMatch(new RegExp(`^${MEMBER_COOKIE}=;.*Max-Age=0`, "i"));
    expect((await site("/auth/account", { headers: { cookie } })).status).toBe(302);
  });

  it("keeps a site's session on that site: the cookie means nothing on another site", async () => {
    await storage.setItem("published-sites:other-site", snapshot("site_someone_else", "acct_other", "other-site"));
    const signIn = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    const elsewhere = await site("/auth/account", { host: "other-site.sites.test", headers: { cookie: cookieOf(signIn) } });
    expect(elsewhere.status).toBe(302);
  });

  it("marks the cookie Secure on an https site, with the __Host- prefix", async () => {
    await storage.setItem("published-sites:secure-site", snapshot(siteId, "acct", "secure-site", { https: true }));
    const response = await site("/auth/sign-in", {
      host: "secure-site.sites.test",
      form: { email: "ada@example.com", password: "analytical-engine" },
      headers: { origin: "https://secure-site.sites.test" },
    });
    const line = ([] as string[]).concat(response.headers["set-cookie"] ?? []).find((c) => c.startsWith(`__Host-${MEMBER_COOKIE}=`));
    expect(line).toMatch(/;\s*Secure/i);
  });

  it("lets signed-in members post in the forum with their session's token", async () => {
    const signIn = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    const cookie = cookieOf(signIn);
    const page = await site("/community", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).toContain("Start a thread");
    const csrf = csrfIn(page.body);

    expect((await post("/community/new", { title: "Hi", body: "Hello" }, { cookie })).status).toBe(403);
    const visitor = await post("/community/new", { title: "Hi", body: "Hello" });
    expect(visitor.status).toBe(303);
    expect(visitor.headers.location).toBe("/auth?next=%2Fcommunity");

    const created = await post("/community/new", { csrf, title: "Launch <script>", body: "It <b>works</b>." }, { cookie });
    expect(created.status).toBe(303);
    const thread = await site(created.headers.location as string);
    expect(thread.body).toContain("<h1>Launch &lt;script&gt;</h1>");
    expect(thread.body).toContain("It &lt;b&gt;works&lt;/b&gt;.");
    expect(thread.body).not.toContain("ada@example.com");
    expect(thread.body).toContain('href="/auth?next=%2Fcommunity%2Ft%2F');

    const tooLong = await post("/community/new", { csrf, title: "t".repeat(201), body: "x" }, { cookie });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toContain("A title may have at most 200 characters.");
  });

  it("leaves unknown forum paths, and the forum of a site without a community, to the site's 404 page", async () => {
    const missing = await site("/community/t/thread_nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("Page not found");
    expect((await site("/auth/nothing-here")).status).toBe(404);
    await storage.setItem("published-sites:quiet-site", { ...snapshot(siteId, "acct", "quiet-site"), community: false });
    const closed = await site("/community", { host: "quiet-site.sites.test" });
    expect(closed.status).toBe(404);
    expect(closed.body).toContain("Page not found");
  });

  it("lists members for the site's owner through the API", async () => {
    const response = await api(`/app/sites/${siteId}/members`, bearer(token));
    expect(response.status).toBe(200);
    const list = (await response.json()) as MemberView[];
    expect(list.map((m) => m.email)).toEqual(["ada@example.com"]);
    expect(list[0]).toEqual({ id: expect.stringMatching(/^member_/), site_id: siteId, email: "ada@example.com", created_at: expect.any(String), last_sign_in_at: expect.any(String) });
    expect(JSON.stringify(list)).not.toMatch(/scrypt|password/);

    const stranger = await h.signUp("stranger@example.com");
    expect((await api(`/app/sites/${siteId}/members`, bearer(stranger.token))).status).toBe(404);
    expect((await api(`/app/sites/${siteId}/members`)).status).toBe(401);
  });
});

// The members-only app (`auth_redirect_to_app`) on the server as `startServer` composes it, in both
// shapes: Reposite alone, and REPOSITE_EDGE=nginx (nginx asks Reposite's member gate, then goes to the app).
describe.each(SHAPES)("the members-only app over a socket (edge: %s)", (shape) => {
  let h: Harness;
  let server: RunningServer;
  let port: number;
  let siteId: string;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  beforeEach(() => {
    offset += 16 * 60_000;
  });
  const { site, post, cookieOf, csrfIn } = siteClient(() => port);

  /** The owner's gate, changed the way the service changes it (the proxy's memory follows ProjectStore); with the edge, once nginx has it. */
  const setGate = async (on: boolean) => {
    await h.reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, auth_redirect_to_app: on }));
    if (shape !== "nginx" || !h.reposite.container.resolve(AppRoutes).get(siteId)) return;
    // On: Reposite's redirect to sign in (nginx asked the gate). Off: nginx went to the app without asking
    // the gate or Reposite (a cookie no decision is kept for, so the gated configuration would ask).
    const probe = () => site("/app/gate-probe", { headers: { cookie: freshCookie() } });
    const applied = async () => (on ? (await site("/app/gate-probe")).status === 302 : Object.values(await nodeRequestsFor(server, probe)).every((count) => count === 0));
    await vi.waitFor(async () => expect(await applied()).toBe(true), { timeout: 10_000, interval: 50 });
  };

  beforeAll(async () => {
    h = await startHarness("in-process", undefined, { clock });
    const owner = await h.signUp("owner@example.com");
    siteId = (await h.reposite.projects.create(owner.accountId, { repohost_url: "https://github.com/acme/rocket-cli" })).id;
    // The address claimed and on the project, as publishing leaves it: the edge routes an app by its project's slug.
    expect(await h.reposite.container.resolve(PublishedSiteStore).claim(SLUG, siteId)).toBe(true);
    await h.reposite.container.resolve(ProjectStore).modify(siteId, (project) => ({ ...project, slug: SLUG }));
    await h.reposite.container.resolve<RecordStorage>(STORAGE).setItem(`published-sites:${SLUG}`, snapshot(siteId, owner.accountId, SLUG));
    await h.reposite.members.register(siteId, { email: "ada@example.com", password: "analytical-engine" });
    port = await freePort();
    server = await startServerIn(shape, h.reposite, port);
  });
  afterAll(async () => {
    // The server closes the composition; the harness's fake GitHub and data dir go after it.
    await server?.close();
    await h?.github.close();
    if (h) await rm(h.dataDir, { recursive: true, force: true });
  });

  it("answers /app/* with a 503 page while no app is deployed", async () => {
    const response = await site("/app/dashboard");
    expect(response.status).toBe(503);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.body).toContain("No app is deployed for this site yet.");
  });


  it("lets only signed-in members reach /app/* when the site sends members to its app", async () => {
    await setGate(true);

    const visitor = await site("/app/reports?range=7d", { headers: { "x-reposite-member-id": "member_forged" } });
    expect(visitor.status).toBe(302);
    expect(visitor.headers.location).toBe("/auth?next=%2Fapp%2Freports%3Frange%3D7d");
    const posted = await site("/app/api", { method: "POST", headers: { origin: ORIGIN } });
    expect(posted.status).toBe(401);

    // Signing in from that page resumes there; without a `next`, members go straight to the app.
    const resumed = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" }, { referer: `${ORIGIN}/auth?next=%2Fapp%2Freports%3Frange%3D7d` });
    expect(resumed.headers.location).toBe("/app/reports?range=7d");
    const straight = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
    expect(straight.headers.location).toBe("/app/");
    const member = await site("/app/reports", { headers: { cookie: cookieOf(straight) } });
    expect(member.status).toBe(503);

    await setGate(false);
  });

  it("forwards members to the running app with who they are, in headers no visitor can forge", async () => {
    // A stand-in for the deployed app: it answers with what it received.
    const app = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ url: req.url, headers: req.headers }));
    });
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    const routes = h.reposite.container.resolve(AppRoutes);
    routes.set(siteId, { status: "running", target: { host: "127.0.0.1", port: (app.address() as AddressInfo).port } });
    await routes.applied(siteId);
    try {
      await setGate(true);
      const forged = { "x-reposite-member-id": "member_forged", "X-Reposite-Member-Email": "boss@example.com" };
      const visitor = await site("/app/reports", { headers: forged });
      expect(visitor.status).toBe(302);

      const signedIn = await post("/auth/sign-in", { email: "ada@example.com", password: "analytical-engine" });
      const cookie = `${cookieOf(signedIn)}; theme=dark`;
      const member = await site("/app/reports?range=7d", { headers: { ...forged, cookie } });
      expect(member.status).toBe(200);
      // With the edge, nginx carried it after asking the gate: Reposite's main listener saw none of it.
      if (shape === "nginx") expect(await byNginxAlone(server, () => site("/app/reports", { headers: { cookie } }))).toBe(true);
      const seen = JSON.parse(member.body) as { url: string; headers: Record<string, string> };
      expect(seen.url).toBe("/reports?range=7d");
      expect(seen.headers["x-reposite-member-id"]).toMatch(/^member_/);
      expect(seen.headers["x-reposite-member-id"]).not.toBe("member_forged");
      expect(seen.headers["x-reposite-member-email"]).toBe("ada@example.com");
      // The app keeps its own cookies, never the member session.
      expect(seen.headers.cookie).toBe("theme=dark");

      // Signed out with the site's form: the same cookie no longer opens the app, at once (with the
      // edge within the gate decision nginx keeps, MEMBER_GATE_CACHE_SECONDS).
      const account = await site("/auth/account", { headers: { cookie } });
      const signedOut = await post("/auth/sign-out", { csrf: csrfIn(account.body) }, { cookie });
      expect(signedOut.status).toBe(303);
      if (shape === "node") expect((await site("/app/reports", { headers: { cookie } })).status).toBe(302);
      else await vi.waitFor(async () => expect((await site("/app/reports", { headers: { cookie } })).status).toBe(302), { timeout: (MEMBER_GATE_CACHE_SECONDS + 2) * 1000, interval: 100 });

      // A site that lets everyone use its app sends no identity, and still drops forged headers.
      await setGate(false);
      const open = JSON.parse((await site("/app/", { headers: forged })).body) as { headers: Record<string, string> };
      expect(Object.keys(open.headers).filter((name) => name.startsWith("x-reposite-"))).toEqual([]);
    } finally {
      await setGate(false);
      routes.delete(siteId);
      await routes.applied(siteId);
      await new Promise((resolve) => app.close(resolve));
    }
  });
});

describe("app identity headers", () => {
  const member: MemberView = { id: "member_abc", site_id: "site_a", email: "ada@example.com", created_at: "", last_sign_in_at: null };
  const visitor: AppVisitor = { address: "203.0.113.9", proto: "https", host: "rocket-cli.sites.test" };
  const raw = (headers: Record<string, string>) => Object.entries(headers).flat();

  it("drops every incoming X-Reposite-* header, then says who the member is", () => {
    const incoming = raw({
      "X-Reposite-Member-Id": "member_forged",
      "x-reposite-member-email": "ceo@example.com",
      "X-REPOSITE-ADMIN": "true",
      "x-reposite-": "empty-suffix",
      "x-forwarded-proto": "http",
      accept: "text/html",
    });
    const headers = appRequestHeaders(incoming, { method: "GET", member, visitor });
    expect(headers["x-reposite-member-id"]).toBe("member_abc");
    expect(headers["x-reposite-member-email"]).toBe("ada@example.com");
    expect(headers["x-reposite-admin"]).toBeUndefined();
    expect(headers["x-reposite-"]).toBeUndefined();
    expect(headers.accept).toBe("text/html");
    // The visitor's own forwarding claims are replaced by what the proxy saw.
    expect(headers["x-forwarded-proto"]).toBe("https");
    expect(Object.keys(headers).filter((name) => name.startsWith("x-reposite-")).sort()).toEqual(["x-reposite-member-email", "x-reposite-member-id"]);
  });

  it("sends no identity for a visitor, and never the member session cookie", () => {
    const headers = appRequestHeaders(raw({ "x-reposite-member-id": "member_forged", cookie: `theme=dark; ${MEMBER_COOKIE}=secret; app_session=xyz` }), { method: "GET", member: null, visitor });
    expect(headers["x-reposite-member-id"]).toBeUndefined();
    expect(headers["x-reposite-member-email"]).toBeUndefined();
    expect(headers.cookie).toBe("theme=dark; app_session=xyz");
    expect(appRequestHeaders(raw({ cookie: `${MEMBER_COOKIE}=secret` }), { method: "GET", member, visitor }).cookie).toBeUndefined();
  });

  it("strips /app from the path the app sees, and knows which paths are dynamic", () => {
    expect(appPath("/app/x/y?q=1")).toBe("/x/y?q=1");
    expect(appPath("/app")).toBe("/");
    expect(appPath("/app/")).toBe("/");
    expect(appPath("/app?q=1")).toBe("/?q=1");
    expect(["/auth/sign-in", "/community", "/community/t/x", "/app", "/app/x"].every(isDynamicSitePath)).toBe(true);
    expect(["/", "/about", "/auth", "/application", "/communityx"].some(isDynamicSitePath)).toBe(false);
  });
});

describe("DiscourseConnect for every site through the service host", () => {
  const discourse = { url: "https://forum.example.com", secret: "discourse-connect-secret" };
  const SERVICE = "http://127.0.0.1:3000";
  const OTHER_SLUG = "comet-cli";
  let h: Harness;
  let app: H3;
  let rocketCookie: string;
  let cometCookie: string;
  let rocketMember: MemberView;
  let cometMember: MemberView;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };

  beforeAll(async () => {
    h = await startHarness("in-process", undefined, { clock });
    const storage = h.reposite.container.resolve<RecordStorage>(STORAGE);
    const members = h.reposite.container.resolve(MembersService);
    const rocket = snapshot("site_rocket", "acct_owner", SLUG);
    const comet = snapshot("site_comet", "acct_owner", OTHER_SLUG);
    await storage.setItem(`published-sites:${SLUG}`, rocket);
    await storage.setItem(`published-sites:${OTHER_SLUG}`, comet);
    app = createApp(h.reposite, { discourse });
    rocketMember = await members.register(rocket.site_id, { email: "ada.lovelace@example.com", password: "analytical-engine" });
    cometMember = await members.register(comet.site_id, { email: "grace.hopper@example.com", password: "compiler-first" });
    rocketCookie = `${MEMBER_COOKIE}=${(await members.createSession(rocket.site_id, rocketMember.id)).secret}`;
    cometCookie = `${MEMBER_COOKIE}=${(await members.createSession(comet.site_id, cometMember.id)).secret}`;
  });
  beforeEach(() => {
    offset = 0;
  });
  afterAll(() => h?.close());

  const onSite = (slug: string, path: string, headers: Record<string, string> = {}) =>
    app.request(`http://${slug}.sites.test${path}`, { headers: { host: `${slug}.sites.test`, ...headers }, redirect: "manual" });
  const onService = (path: string, headers: Record<string, string> = {}) =>
    app.request(`${SERVICE}${path}`, { headers: { host: "127.0.0.1:3000", ...headers }, redirect: "manual" });
  const signed = (fields: Record<string, string>, secret = discourse.secret) => {
    const sso = Buffer.from(new URLSearchParams(fields).toString()).toString("base64");
    return `sso=${encodeURIComponent(sso)}&sig=${createHmac("sha256", secret).update(sso).digest("hex")}`;
  };
  const request = { nonce: "n0nce-42", return_sso_url: "https://forum.example.com/session/sso_login" };
  const cookieFrom = (response: Response) => response.headers.getSetCookie().find((c) => c.startsWith("reposite_discourse="))?.split(";")[0] ?? "";

  /** A member's whole trip: their site, the service host, Discourse's request, the signed answer. */
  async function signInThrough(slug: string, memberCookie: string): Promise<Record<string, string>> {
    const fromSite = await onSite(slug, "/community", { cookie: memberCookie });
    expect(fromSite.status).toBe(302);
    const handOff = new URL(fromSite.headers.get("location")!);
    expect(`${handOff.origin}${handOff.pathname}`).toBe(`${SERVICE}/community/discourse`);
    const atService = await onService(`${handOff.pathname}${handOff.search}`);
    expect(atService.status).toBe(302);
    expect(atService.headers.get("location")).toBe("https://forum.example.com/session/sso?return_path=%2F");
    const ticketCookie = cookieFrom(atService);
    expect(ticketCookie).not.toBe("");
    const answer = await onService(`/community/sso?${signed(request)}`, { cookie: ticketCookie });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(request.return_sso_url);
    const sso = location.searchParams.get("sso")!;
    expect(location.searchParams.get("sig")).toBe(createHmac("sha256", discourse.secret).update(sso).digest("hex"));
    // The ticket is spent: the cookie is cleared on the way back to Discourse.
    expect(answer.headers.getSetCookie().some((c) => /^reposite_discourse=;/.test(c) || /reposite_discourse=.*Max-Age=0/i.test(c))).toBe(true);
    return Object.fromEntries(new URLSearchParams(Buffer.from(sso, "base64").toString()));
  }

  it("sends visitors to read Discourse as guests", async () => {
    expect((await onSite(SLUG, "/community")).headers.get("location")).toBe("https://forum.example.com/");
    expect((await onSite(SLUG, "/community/t/thread_x")).headers.get("location")).toBe("https://forum.example.com/");
  });

  it("signs in members of two different sites with one Discourse", async () => {
    expect(await signInThrough(SLUG, rocketCookie)).toEqual({
      nonce: "n0nce-42",
      email: "ada.lovelace@example.com",
      external_id: rocketMember.id,
      username: "ada.lovelace",
      name: "ada.lovelace",
      require_activation: "true",
    });
    expect(await signInThrough(OTHER_SLUG, cometCookie)).toMatchObject({ email: "grace.hopper@example.com", external_id: cometMember.id });
  });

  it("refuses forged, expired and missing tickets on a page", async () => {
    const forged = await onService("/community/discourse?ticket=not-a-ticket");
    expect(forged.status).toBe(401);
    expect(forged.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await forged.text()).toContain("This link to the community is not valid.");

    const fromSite = await onSite(SLUG, "/community", { cookie: rocketCookie });
    const handOff = new URL(fromSite.headers.get("location")!);
    offset = 6 * 60_000;
    const late = await onService(`${handOff.pathname}${handOff.search}`);
    expect(late.status).toBe(401);
    expect(await late.text()).toContain("has expired");

    const noTicket = await onService(`/community/sso?${signed(request)}`);
    expect(noTicket.status).toBe(401);
    expect(await noTicket.text()).toContain("Open the community from the site where you are a member.");
  });

  it("refuses a request Discourse did not sign, or one that returns elsewhere", async () => {
    const fromSite = await onSite(SLUG, "/community", { cookie: rocketCookie });
    const handOff = new URL(fromSite.headers.get("location")!);
    const ticketCookie = cookieFrom(await onService(`${handOff.pathname}${handOff.search}`));
    const forged = await onService(`/community/sso?${signed(request, "not the secret")}`, { cookie: ticketCookie });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("This single sign-on request is not signed by the forum.");
    const elsewhere = await onService(`/community/sso?${signed({ ...request, return_sso_url: "https://evil.example/session/sso_login" })}`, { cookie: ticketCookie });
    expect(elsewhere.status).toBe(400);
  });

  it("has no Discourse routes on a server without Discourse, and none on site hosts", async () => {
    const plain = createApp(h.reposite);
    const response = await plain.request(`${SERVICE}/community/sso?${signed(request)}`, { headers: { host: "127.0.0.1:3000" } });
    expect(response.status).toBe(404);
    expect((await onSite(SLUG, `/community/sso?${signed(request)}`, { cookie: rocketCookie })).headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:3000\/community\/discourse\?ticket=/);
  });

  it("reads the operator's Discourse from the environment, both settings or neither", () => {
    expect(discourseFromEnv({})).toBeNull();
    expect(discourseFromEnv({ REPOSITE_DISCOURSE_URL: "https://forum.example.com/", REPOSITE_DISCOURSE_SECRET: "0123456789abcdef" })).toEqual({
      url: "https://forum.example.com",
      secret: "0123456789abcdef",
    });
    expect(() => discourseFromEnv({ REPOSITE_DISCOURSE_URL: "https://forum.example.com" })).toThrow(/go together/);
    expect(() => discourseFromEnv({ REPOSITE_DISCOURSE_URL: "ftp://forum", REPOSITE_DISCOURSE_SECRET: "0123456789abcdef" })).toThrow(/https/);
    expect(() => discourseFromEnv({ REPOSITE_DISCOURSE_URL: "https://forum.example.com", REPOSITE_DISCOURSE_SECRET: "short" })).toThrow(/too short/);
  });
});
