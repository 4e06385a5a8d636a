import { mkdtemp, rm } from "node:fs/promises";
import { request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, STORAGE } from "@reposite/core";
import { freePort, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, DEFAULT_REPOS, json } from "./harness.js";
import { startServerProcess, type ServerProcess } from "./server-process.js";

// A black-box test of `reposite serve` found that a project deleted without purge kept its site
// up with no way down (every later DELETE answered 404). Proved the same way: the built server in
// its own process, over loopback, and its records read back from the data directory afterwards.

let github: FakeGitHub;
let dataDir: string;
let server: ServerProcess;
let owner: string;
let stranger: string;

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-removal-"));
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const token = async (email: string) => {
    const { account } = await reposite.accounts.findOrCreate(email);
    return (await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;
  };
  owner = await token("owner@example.com");
  stranger = await token("stranger@example.com");
  await reposite.close();
  server = await startServerProcess(await freePort(), { REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url });
});
afterAll(async () => {
  await server?.kill();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);

interface SiteAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request to a site's host (Node's fetch drops a Host header), a form posted from the site's own page when given. */
function site(host: string, path: string, init: { form?: Record<string, string>; cookie?: string } = {}): Promise<SiteAnswer> {
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: body === undefined ? "GET" : "POST",
        headers: {
          host,
          ...(init.cookie ? { cookie: init.cookie } : {}),
          ...(body === undefined
            ? {}
            : { origin: `http://${host}`, "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const PAGE = "<!doctype html><html><head><title>Rocket</title></head><body><h1>Launch rockets</h1></body></html>";

/** A project published with its forum open, a member signed up and a thread posted: what a live site holds. */
async function livingSite(): Promise<{ siteId: string; host: string; cookie: string }> {
  const created = await api("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }, owner));
  expect(created.status).toBe(201);
  const siteId = ((await created.json()) as { id: string }).id;
  expect((await api(`/app/sites/${siteId}/versions`, json({ kind: "template", html: PAGE, name: "mine" }, owner))).status).toBe(201);
  const published = await api(`/app/sites/${siteId}/publish`, json({ discourse: true }, owner));
  expect(published.status).toBe(200);
  const host = new URL(((await published.json()) as { url: string }).url).host;

  const signedUp = await site(host, "/auth/sign-up", { form: { email: "ada@example.com", password: "analytical-engine" } });
  expect(signedUp.status).toBe(303);
  const cookie = ([] as string[]).concat(signedUp.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
  const forum = await site(host, "/community", { cookie });
  const csrf = /name="csrf" value="([^"]+)"/.exec(forum.body)?.[1];
  expect(csrf).toBeTruthy();
  expect((await site(host, "/community/new", { cookie, form: { csrf: csrf!, title: "Hello", body: "First post" } })).status).toBe(303);
  return { siteId, host, cookie };
}

describe("deleting a project on a real server process", () => {
  it("leaves the site up without purge; later only its owner takes it down with purge=1, and nothing of it is left", async () => {
    const { siteId, host, cookie } = await livingSite();

    expect((await api(`/app/sites/${siteId}`, bearer(owner, "DELETE"))).status).toBe(204);
    expect((await api(`/app/sites/${siteId}`, bearer(owner))).status).toBe(404);
    // The site is still up, its member still signed in.
    expect((await site(host, "/")).status).toBe(200);
    expect((await site(host, "/auth/account", { cookie })).status).toBe(200);

    // Another account cannot take it down: the same 404 as for a project that never was.
    const refused = await api(`/app/sites/${siteId}?purge=1`, bearer(stranger, "DELETE"));
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: "Project not found." });
    expect((await site(host, "/")).status).toBe(200);

    // Its owner is told how, and does it.
    const hint = await api(`/app/sites/${siteId}`, bearer(owner, "DELETE"));
    expect(hint.status).toBe(404);
    expect(((await hint.json()) as { error: string }).error).toContain("purge=1");
    expect((await api(`/app/sites/${siteId}?purge=1`, bearer(owner, "DELETE"))).status).toBe(204);
    const gone = await site(host, "/");
    expect(gone.status).toBe(404);
    expect(gone.body).toContain("No site here");
    expect((await site(host, "/auth/account", { cookie })).status).toBe(404);
    expect((await api(`/app/sites/${siteId}?purge=1`, bearer(owner, "DELETE"))).status).toBe(404);

    // Read back from the data directory: no record names the project, in its key or its value.
    await server.stop();
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    try {
      const storage = reposite.container.resolve(STORAGE);
      const keys = await storage.getKeys();
      expect(keys.some((key) => key.startsWith("accounts:"))).toBe(true);
      const traces: string[] = [];
      for (const key of keys) {
        if (key.includes(siteId) || JSON.stringify(await storage.getItem(key)).includes(siteId)) traces.push(key);
      }
      expect(traces).toEqual([]);
    } finally {
      await reposite.close();
    }
  });
});
