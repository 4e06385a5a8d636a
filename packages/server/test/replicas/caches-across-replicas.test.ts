import { findDesign, renderPage, STORAGE, type RecordStorage, type AuthContent, type PublishedSite, type SiteContext } from "@reposite/core";
import { postgresForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, json } from "../harness.js";
import { requestHost, SITES_DOMAIN, startReplicaSet, timeUntil, type ReplicaSet } from "./replica-set.js";

// Three `reposite serve` processes on one PostgreSQL: a change made through one replica is what the
// others serve within a second, although each keeps caches (projects, published sites, member
// sessions) in memory. The caches follow the EVENTS port, which Postgres shares.

const postgres = postgresForTests();
/** The bound the docs state for a change to reach every replica. */
const BOUND_MS = 1_000;

describe.skipIf(!postgres.available)("caches across three replicas on one PostgreSQL", () => {
  let set: ReplicaSet;
  let token: string;
  const api = (replica: number, path: string, init?: RequestInit) => fetch(`${set.replicas[replica]!.url}${path}`, init);
  const jobDone = async (replica: number, jobId: string) => {
    for (let id: string | null = jobId; id; ) {
      let job = (await (await api(replica, `/app/jobs/${id}`, bearer(token))).json()) as { status: string; next_job_id: string | null };
      for (let i = 0; job.status === "running" && i < 500; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        job = (await (await api(replica, `/app/jobs/${id}`, bearer(token))).json()) as typeof job;
      }
      expect(job.status).toBe("done");
      id = job.next_job_id;
    }
  };

  beforeAll(async () => {
    set = await startReplicaSet(3);
    ({ token } = await set.signUp("owner@example.com"));
  });
  afterAll(async () => {
    await set?.stopAll();
  });

  it("serves a rename, a publish and a new address made through replica A from replicas B and C within a second", async () => {
    const created = await api(0, "/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, token));
    expect(created.status).toBe(201);
    const siteId = ((await created.json()) as { id: string }).id;
    const started = (await (await api(0, `/app/sites/${siteId}/generate`, json({ mode: "landing" }, token))).json()) as { job_id: string };
    await jobDone(0, started.job_id);
    expect((await api(0, `/app/sites/${siteId}/slug`, json({ slug: "rocket-one" }, token))).status).toBe(200);
    expect((await api(0, `/app/sites/${siteId}/publish`, json({}, token))).status).toBe(200);
    const host = (slug: string) => `${slug}.${SITES_DOMAIN}`;
    // B and C now hold the project and the page in their caches.
    for (const replica of [1, 2]) {
      expect(((await (await api(replica, `/app/sites/${siteId}`, bearer(token))).json()) as { name: string }).name).toBe("rocket-cli");
      expect((await requestHost(set.replicas[replica]!.url, host("rocket-one"), "/")).status).toBe(200);
    }

    // A rename through A: the project as B and C answer it.
    expect((await api(0, `/app/sites/${siteId}`, json({ name: "Rocket Launcher" }, token, "PATCH"))).status).toBe(200);
    const renamed = await Promise.all(
      [1, 2].map((replica) =>
        timeUntil(async () => ((await (await api(replica, `/app/sites/${siteId}`, bearer(token))).json()) as { name: string }).name === "Rocket Launcher"),
      ),
    );
    // A publish through A: the page B and C serve.
    expect((await api(0, `/app/sites/${siteId}/publish`, json({}, token))).status).toBe(200);
    const published = await Promise.all(
      [1, 2].map((replica) => timeUntil(async () => (await requestHost(set.replicas[replica]!.url, host("rocket-one"), "/")).body.includes("Rocket Launcher"))),
    );
    // A new address: the old one stops answering on B and C, the new one answers.
    expect((await api(0, `/app/sites/${siteId}/slug`, json({ slug: "rocket-two" }, token))).status).toBe(200);
    expect((await api(0, `/app/sites/${siteId}/publish`, json({}, token))).status).toBe(200);
    const moved = await Promise.all(
      [1, 2].map((replica) =>
        timeUntil(async () => {
          const [before, after] = await Promise.all([
            requestHost(set.replicas[replica]!.url, host("rocket-one"), "/"),
            requestHost(set.replicas[replica]!.url, host("rocket-two"), "/"),
          ]);
          return before.status === 404 && after.status === 200;
        }),
      ),
    );
    const slowest = Math.max(...renamed, ...published, ...moved);
    console.log(`[replicas] rename ${renamed.map(Math.round)} ms, publish ${published.map(Math.round)} ms, new address ${moved.map(Math.round)} ms`);
    expect(slowest).toBeLessThanOrEqual(BOUND_MS);
  });

  it("refuses a revoked token on every replica at its next request", async () => {
    const { token: doomed, tokenId } = await set.signUp("revoker@example.com");
    // Every replica has seen the token work.
    for (const replica of [0, 1, 2]) expect((await api(replica, "/app/sites", bearer(doomed))).status).toBe(200);
    expect((await api(0, `/app/tokens/${tokenId}`, bearer(doomed, "DELETE"))).status).toBe(204);
    for (const replica of [1, 2, 0]) {
      const refused = await api(replica, "/app/sites", bearer(doomed));
      expect(refused.status).toBe(401);
    }
  });

  it("ends a member's session on every replica within a second when the member signs out through one", async () => {
    const owner = await set.signUp("site-owner@example.com");
    const created = await api(0, "/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, owner.token));
    const siteId = ((await created.json()) as { id: string }).id;
    const slug = "members-site";
    const reposite = await set.direct();
    await reposite.container.resolve<RecordStorage>(STORAGE).setItem(`published-sites:${slug}`, memberSite(siteId, owner.accountId, slug));
    const host = `${slug}.${SITES_DOMAIN}`;
    const origin = `http://${host}`;
    const site = (replica: number, path: string, init: Parameters<typeof requestHost>[3] = {}) => requestHost(set.replicas[replica]!.url, host, path, init);

    const signUp = await site(1, "/auth/sign-up", { form: { email: "ada@example.com", password: "analytical-engine" }, headers: { origin } });
    expect(signUp.status).toBe(303);
    const cookie = ([] as string[]).concat(signUp.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
    // Every replica knows the session (and caches it).
    const accounts = await Promise.all([0, 1, 2].map((replica) => site(replica, "/auth/account", { headers: { cookie } })));
    expect(accounts.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const csrf = /name="csrf" value="([^"]+)"/.exec(accounts[0]!.body)?.[1] ?? "";

    const out = await site(0, "/auth/sign-out", { form: { csrf }, headers: { origin, cookie } });
    expect(out.status).toBe(303);
    const ended = await Promise.all([1, 2].map((replica) => timeUntil(async () => (await site(replica, "/auth/account", { headers: { cookie } })).status === 302)));
    console.log(`[replicas] member signed out: ${ended.map(Math.round)} ms`);
    expect(Math.max(...ended)).toBeLessThanOrEqual(BOUND_MS);
  });
});

const AUTH: AuthContent = {
  kind: "auth",
  meta: { title: "Sign in", description: "Members area" },
  title: "Welcome back",
  subtitle: "Sign in or create an account.",
  sign_in_label: "Sign in",
  sign_up_label: "Create account",
  note: "Members can join the forum.",
};

/** A published site with members, written as publishing leaves it (the API publishes none without an app or a model). */
function memberSite(siteId: string, ownerId: string, slug: string): PublishedSite {
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
    url: `http://${slug}.${SITES_DOMAIN}`,
    design: design.id,
    name: "rocket-cli",
    pages: ["template", "auth"],
    community: true,
    files: { "/": file("/", "<!doctype html><title>rocket-cli</title>"), "/auth": file("/auth", renderPage(design, AUTH, context)) },
    published_at: "2026-03-01T00:00:00Z",
    revision: 1,
  };
}
