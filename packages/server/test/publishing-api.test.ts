import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createReposite, PublishedSiteStore, type Reposite } from "@reposite/core";
import { createMemoryContainerRuntime, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { toNodeHandler } from "h3";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { bearer, json, type Transport } from "./harness.js";

const REPOS = [
  {
    owner: "acme",
    name: "rocket-cli",
    description: "Launch rockets from your terminal",
    topics: ["cli"],
    readme: "# Rocket CLI\n\nLaunch rockets.\n",
    files: { Dockerfile: 'FROM node:22\nCMD ["node", "server.js"]\n' },
  },
];

interface Api {
  reposite: Reposite;
  call(path: string, init?: RequestInit): Promise<Response>;
  signUp(email: string): Promise<string>;
  close(): Promise<void>;
}

/** The app, in-process or on a loopback socket. */
async function startApi(transport: Transport, github: FakeGitHub): Promise<Api> {
  // Apps run on the in-memory container runtime (its containers answer HTTP on 127.0.0.1).
  const runtime = createMemoryContainerRuntime();
  const reposite = createReposite({
    storage: createStorage(),
    config: { baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    containerRuntime: runtime,
    hosting: { healthIntervalMs: 20 },
  });
  const app = createApp(reposite);
  let server: Server | undefined;
  let call: Api["call"];
  if (transport === "socket") {
    server = createServer(toNodeHandler(app));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    call = (path, init) => fetch(`${base}${path}`, init);
  } else {
    call = async (path, init) => app.request(`http://127.0.0.1:3000${path}`, init);
  }
  return {
    reposite,
    call,
    async signUp(email) {
      const { account } = await reposite.accounts.findOrCreate(email);
      return (await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;
    },
    async close() {
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
      await reposite.close();
      await runtime.close();
    },
  };
}

describe.each(["in-process", "socket"] as const)("publishing over HTTP (%s)", (transport) => {
  let github: FakeGitHub;
  let api: Api;
  let token: string;
  let otherToken: string;
  const newSite = async () => (await (await api.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli" }, token))).json()).id as string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: REPOS });
    api = await startApi(transport, github);
    token = await api.signUp("ada@example.com");
    otherToken = await api.signUp("eve@example.com");
  });
  afterAll(async () => {
    await api.close();
    await github.close();
  });

  it("answers GET /app/subdomain-check: available, invalid, reserved, taken; a token is required", async () => {
    const check = async (slug: string) => (await api.call(`/app/subdomain-check?slug=${encodeURIComponent(slug)}`, bearer(token))).json();
    expect((await api.call("/app/subdomain-check?slug=abc")).status).toBe(401);
    await expect(check("fresh-slug")).resolves.toEqual({ available: true });
    await expect(check("No_Good")).resolves.toEqual({ available: false, reason: "invalid" });
    await expect(check("ab")).resolves.toEqual({ available: false, reason: "invalid" });
    await expect((await api.call("/app/subdomain-check", bearer(token))).json()).resolves.toEqual({ available: false, reason: "invalid" });
    await expect((await api.call("/app/subdomain-check?slug=abc&slug=abd", bearer(token))).json()).resolves.toEqual({ available: false, reason: "invalid" });
    await expect(check("www")).resolves.toEqual({ available: false, reason: "reserved" });
    const site = await newSite();
    expect((await api.call(`/app/sites/${site}/slug`, json({ slug: "checked-slug" }, token))).status).toBe(200);
    await expect(check("checked-slug")).resolves.toEqual({ available: false, reason: "taken" });
  });

  it("sets a slug with POST /app/sites/{id}/slug; 422 invalid, 409 reserved or taken, 404 for another account", async () => {
    const site = await newSite();
    const set = (slug: unknown, who = token, id = site) => api.call(`/app/sites/${id}/slug`, json({ slug }, who));

    const ok = await set("my-rocket");
    expect(ok.status).toBe(200);
    await expect(ok.json()).resolves.toEqual({ slug: "my-rocket", url: "https://my-rocket.sites.example" });
    await expect((await api.call(`/app/sites/${site}`, bearer(token))).json()).resolves.toMatchObject({ slug: "my-rocket", url: "https://my-rocket.sites.example" });

    const invalid = await set("-bad-");
    expect(invalid.status).toBe(422);
    await expect(invalid.json()).resolves.toMatchObject({ code: "invalid_slug", field: "slug", error: expect.stringContaining("3 to 60") });
    expect((await set(42)).status).toBe(422);
    expect((await set("x".repeat(61))).status).toBe(422);

    const reserved = await set("admin");
    expect(reserved.status).toBe(409);
    await expect(reserved.json()).resolves.toMatchObject({ code: "slug_reserved" });

    const other = await newSite();
    const taken = await set("my-rocket", token, other);
    expect(taken.status).toBe(409);
    await expect(taken.json()).resolves.toMatchObject({ code: "slug_taken" });

    expect((await set("eves-rocket", otherToken)).status).toBe(404);
    expect((await set("nobodys-rocket", token, "site_missing")).status).toBe(404);
  });

  it("gives one slug to exactly one of several projects posting it at the same time", async () => {
    const sites = await Promise.all(Array.from({ length: 12 }, () => newSite()));
    const answers = await Promise.all(sites.map((id) => api.call(`/app/sites/${id}/slug`, json({ slug: "raced-for" }, token))));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(11);
    const bodies = await Promise.all(answers.map((answer) => answer.json()));
    for (const [i, body] of bodies.entries()) {
      if (statuses[i] === 409) expect(body).toMatchObject({ code: "slug_taken" });
    }
    const winner = sites[statuses.indexOf(200)]!;
    await expect(api.reposite.container.resolve(PublishedSiteStore).holder("raced-for")).resolves.toBe(winner);
  });

  it("publishes: 409 nothing_to_publish before generation, then {url, pages}; publish-page; 404 for another account", async () => {
    const site = await newSite();
    const nothing = await api.call(`/app/sites/${site}/publish`, json({}, token));
    expect(nothing.status).toBe(409);
    await expect(nothing.json()).resolves.toMatchObject({ code: "nothing_to_publish" });

    const started = await (await api.call(`/app/sites/${site}/generate`, json({ mode: "website", pages: ["about", "auth"] }, token))).json();
    await followChain(api, token, started.job_id);
    expect((await api.call(`/app/sites/${site}/slug`, json({ slug: "published-rocket" }, token))).status).toBe(200);

    const published = await api.call(`/app/sites/${site}/publish`, json({}, token));
    expect(published.status).toBe(200);
    await expect(published.json()).resolves.toEqual({ url: "https://published-rocket.sites.example", pages: ["template", "about", "auth"], warnings: [] });
    const snapshot = await api.reposite.container.resolve(PublishedSiteStore).get("published-rocket");
    expect(snapshot).toMatchObject({ site_id: site, pages: ["template", "about", "auth"], community: false });
    expect(Object.keys(snapshot!.files)).toEqual(expect.arrayContaining(["/", "/about", "/auth", "/404", "/sitemap.xml", "/robots.txt", "/og.png"]));

    // A body is optional.
    expect((await api.call(`/app/sites/${site}/publish`, bearer(token, "POST"))).status).toBe(200);
    const badFlag = await api.call(`/app/sites/${site}/publish`, json({ discourse: "yes" }, token));
    expect(badFlag.status).toBe(422);

    const page = await api.call(`/app/sites/${site}/publish-page`, json({ kind: "about" }, token));
    expect(page.status).toBe(200);
    await expect(page.json()).resolves.toEqual({ url: "https://published-rocket.sites.example", pages: ["template", "about", "auth"], warnings: [] });
    const missingPage = await api.call(`/app/sites/${site}/publish-page`, json({ kind: "faq" }, token));
    expect(missingPage.status).toBe(409);
    await expect(missingPage.json()).resolves.toMatchObject({ code: "nothing_to_publish" });
    expect((await api.call(`/app/sites/${site}/publish-page`, json({ kind: "nope" }, token))).status).toBe(422);

    expect((await api.call(`/app/sites/${site}/publish`, json({}, otherToken))).status).toBe(404);
    expect((await api.call(`/app/sites/${site}/publish-page`, json({ kind: "about" }, otherToken))).status).toBe(404);
    expect((await api.call(`/app/sites/${site}/publish`, json({}))).status).toBe(401);
  });

  it("DELETE leaves the published site up; with purge=1 it goes down and the address is free again", async () => {
    const published = async (slug: string) => {
      const site = await newSite();
      const started = await (await api.call(`/app/sites/${site}/generate`, json({ mode: "landing" }, token))).json();
      await followChain(api, token, started.job_id);
      await api.call(`/app/sites/${site}/slug`, json({ slug }, token));
      expect((await api.call(`/app/sites/${site}/publish`, json({}, token))).status).toBe(200);
      return site;
    };
    const sites = api.reposite.container.resolve(PublishedSiteStore);
    const check = async (slug: string) => (await api.call(`/app/subdomain-check?slug=${slug}`, bearer(token))).json();

    const kept = await published("kept-rocket");
    expect((await api.call(`/app/sites/${kept}`, bearer(token, "DELETE"))).status).toBe(204);
    expect(await sites.get("kept-rocket")).toMatchObject({ site_id: kept });
    await expect(check("kept-rocket")).resolves.toEqual({ available: false, reason: "taken" });

    const purged = await published("purged-rocket");
    expect((await api.call(`/app/sites/${purged}?purge=1`, bearer(token, "DELETE"))).status).toBe(204);
    expect(await sites.get("purged-rocket")).toBeNull();
    await expect(check("purged-rocket")).resolves.toEqual({ available: true });
    expect((await api.call(`/app/sites/${purged}`, bearer(token))).status).toBe(404);
  });

  it("turns auth_redirect_to_app on only with a published sign-in page and a running app", async () => {
    const site = await newSite();
    const patch = () => api.call(`/app/sites/${site}`, json({ auth_redirect_to_app: true }, token, "PATCH"));
    const refused = await patch();
    expect(refused.status).toBe(409);
    await expect(refused.json()).resolves.toMatchObject({ code: "auth_redirect_unavailable", missing: ["sign_in_page", "app"] });

    const started = await (await api.call(`/app/sites/${site}/generate`, json({ mode: "website", pages: ["auth"] }, token))).json();
    await followChain(api, token, started.job_id);
    await api.call(`/app/sites/${site}/publish`, json({}, token));
    await expect((await patch()).json()).resolves.toMatchObject({ code: "auth_redirect_unavailable", missing: ["app"] });

    // The app is set up and deployed until it runs.
    expect((await api.call(`/app/sites/${site}/deployment`, json({}, token, "PUT"))).status).toBe(201);
    const deploy = await api.call(`/app/sites/${site}/deployment/deploy`, json({}, token));
    expect(deploy.status).toBe(202);
    await followChain(api, token, (await deploy.json()).job_id);
    await expect((await api.call(`/app/sites/${site}/deployment`, bearer(token))).json()).resolves.toMatchObject({ status: "running" });
    const allowed = await patch();
    expect(allowed.status).toBe(200);
    await expect(allowed.json()).resolves.toMatchObject({ auth_redirect_to_app: true });
    // Turning it off needs nothing.
    expect((await api.call(`/app/sites/${site}`, json({ auth_redirect_to_app: false }, token, "PATCH"))).status).toBe(200);
  });

  it("publishes a project without a slug at an address derived from its name", async () => {
    const site = (await (await api.call("/app/sites", json({ repohost_url: "github.com/acme/rocket-cli", name: "Launch Pad" }, token))).json()).id;
    const started = await (await api.call(`/app/sites/${site}/generate`, json({ mode: "landing" }, token))).json();
    await followChain(api, token, started.job_id);
    const published = await api.call(`/app/sites/${site}/publish`, json({}, token));
    await expect(published.json()).resolves.toEqual({ url: "https://launch-pad.sites.example", pages: ["template"], warnings: [] });
    await expect((await api.call(`/app/sites/${site}`, bearer(token))).json()).resolves.toMatchObject({ slug: "launch-pad" });
  });
});

type Job = { status: string; next_job_id: string | null };

async function followChain(api: Api, token: string, first: string): Promise<void> {
  for (let id: string | null = first; id; ) {
    let job: Job = await (await api.call(`/app/jobs/${id}`, bearer(token))).json();
    for (let i = 0; job.status === "running" && i < 400; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      job = await (await api.call(`/app/jobs/${id}`, bearer(token))).json();
    }
    expect(job.status).toBe("done");
    id = job.next_job_id;
  }
}
