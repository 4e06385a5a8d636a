import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, dockerAvailable, freePort, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startServerProcess, stopLeftNginx, type ServerProcess } from "../server-process.js";

// `reposite serve` with REPOSITE_EDGE=nginx, in its own process, on the real Docker Engine and the
// machine's nginx: a members-only app (`auth_redirect_to_app`) is served by nginx itself, which
// asks Reposite's member gate (`auth_request`) and keeps its decision a few seconds.

const RUN_LABEL = "reposite-test.run";
const engine = await dockerAvailable();
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
const required = process.env.REPOSITE_REQUIRE_DOCKER === "1";
if (required && !engine) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but no Docker Engine answers");
if (required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

/** The edge's default bound on a kept gate decision (`MEMBER_GATE_CACHE_SECONDS`). */
const GATE_CACHE_MS = 3_000;

/** Answers what it received (path and headers); its container's hostname tells deploys apart. */
const APP_JS = `
const http = require("node:http");
http.createServer((req, res) => {
  // An app that tries to plant Reposite's member session, beside a cookie of its own.
  const planted = req.url.startsWith("/plant") ? ["__Host-reposite_member=planted; Secure; Path=/", "reposite_member=planted; Path=/", "app_ok=1; Path=/"] : [];
  res.writeHead(200, { "content-type": "application/json", "set-cookie": planted });
  res.end(JSON.stringify({ version: require("node:os").hostname(), path: req.url, headers: req.headers }));
}).listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(port: number, path: string, headers: Record<string, string>, options: { method?: string; body?: string; timeoutMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: options.method ?? "GET", headers, agent: false, timeout: options.timeoutMs ?? 5_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`no answer to ${path} within ${options.timeoutMs ?? 5_000} ms`)));
    req.end(options.body);
  });
}

describe.runIf(engine && nginxHere)("REPOSITE_EDGE=nginx serves members-only apps itself", () => {
  const run = `edge-gate-${randomBytes(4).toString("hex")}`;
  let github: FakeGitHub;
  let dataDir: string;
  let port: number;
  let server: ServerProcess;
  let token: string;
  let siteId: string;
  let host: string;
  let origin: string;

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const deploy = async () => {
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${siteId}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (job.finished_at && job.status !== "done") throw new Error(`deploy ended ${job.status}: ${JSON.stringify(job).slice(0, 600)}`);
      if (job.finished_at) return;
    }
    throw new Error("deploy did not finish");
  };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  /** Signs a new member up on the site: the member cookie the browser keeps. */
  const signUp = async (email: string) => {
    const answer = await send(port, "/auth/sign-up", { host, origin, "content-type": "application/x-www-form-urlencoded" }, { method: "POST", body: form({ email, password: "analytical-engine" }) });
    expect(answer.status).toBe(303);
    const cookie = ([] as string[]).concat(answer.headers["set-cookie"] ?? []).find((line) => line.startsWith("reposite_member="));
    if (!cookie) throw new Error(`no member cookie: ${answer.status} ${JSON.stringify(answer.headers)}`);
    return cookie.split(";")[0]!;
  };
  const signOut = async (cookie: string) => {
    const account = await send(port, "/auth/account", { host, cookie });
    const csrf = /name="csrf" value="([^"]+)"/.exec(account.body)?.[1];
    if (!csrf) throw new Error(`no sign-out form: ${account.status}`);
    const answer = await send(port, "/auth/sign-out", { host, origin, cookie, "content-type": "application/x-www-form-urlencoded" }, { method: "POST", body: form({ csrf }) });
    expect(answer.status).toBe(303);
  };
  /** Runs `check` while Node is frozen: whatever answers is nginx alone. */
  const withNodeStopped = async <T>(check: () => Promise<T>): Promise<T> => {
    server.child.kill("SIGSTOP");
    try {
      return await check();
    } finally {
      server.child.kill("SIGCONT");
    }
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    const repo: FakeRepo = {
      owner: "acme",
      name: `gate-app-${run.slice(-8)}`,
      files: { Dockerfile: [`FROM ${images.node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": APP_JS },
    };
    github = await startFakeGitHub({ repos: [repo] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-edge-gate-"));
    port = await freePort();
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
    token = (await setup.tokens.create(account.id, { name: "edge", lifetime: "30d" })).secret;
    await setup.close();
    server = await startServerProcess(port, {
      REPOSITE_EDGE: "nginx",
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_URL: `http://127.0.0.1:${port}`,
      REPOSITE_GITHUB_API_URL: github.url,
      REPOSITE_BASE_IMAGE_NODE: images.node,
      REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
      // Not localhost: browsers treat http://*.localhost as secure, an http site elsewhere is not.
      REPOSITE_SITES_DOMAIN: `sites.test:${port}`,
    });
    siteId = (await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }))).id;
    await api(`/app/sites/${siteId}/deployment`, json({}, undefined, "PUT"));
    await deploy();
    // Members-only needs a published sign-in page and a running app.
    await api(`/app/sites/${siteId}/versions`, json({ kind: "template", html: "<!doctype html><title>Club</title><h1>Club</h1>", name: "home" }));
    await api(`/app/sites/${siteId}/versions`, json({ kind: "auth", html: "<!doctype html><title>Sign in</title><h1>Sign in</h1>", name: "sign in" }));
    origin = new URL((await api<{ url: string }>(`/app/sites/${siteId}/publish`, json({}))).url).origin;
    host = new URL(origin).host;
    await api(`/app/sites/${siteId}`, json({ auth_redirect_to_app: true }, undefined, "PATCH"));
    // nginx has the gate once the coalesced reload after the change is done (Node gates at once).
    for (const deadline = Date.now() + 10_000; (await send(port, "/app/", { host })).status !== 302; await new Promise((resolve) => setTimeout(resolve, 100))) {
      if (Date.now() > deadline) throw new Error("nginx did not take the gate within 10 s");
    }
    expect(await readFile(join(dataDir, "edge", "routes.conf"), "utf8")).toContain(`server_name "${host.split(":")[0]}"`);
  }, 300_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill();
    if (dataDir) await stopLeftNginx(dataDir);
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("sends a signed-out visitor to sign in as the Node runtime does, and refuses their writes with the 401 page", async () => {
    const read = await send(port, "/app/reports?week=3", { host });
    expect(read.status).toBe(302);
    expect(read.headers.location).toBe(`/auth?next=${encodeURIComponent("/app/reports?week=3")}`);
    const write = await send(port, "/app/reports", { host, "content-type": "text/plain" }, { method: "POST", body: "x" });
    expect(write.status).toBe(401);
    expect(write.body).toContain("Only signed-in members may use this app.");
  });

  it("lets a member through nginx with who they are, never the visitor's forged identity or Reposite's cookies, also while Node is frozen", async () => {
    const cookie = await signUp(`ada-${run}@example.com`);
    const headers = { host, cookie: `theme=dark; ${cookie}; __Host-reposite_x=1; lang=en`, "x-reposite-member-id": "member_forged", "x-reposite-member-email": "boss@example.com" };
    const first = await send(port, "/app/me?x=1", headers);
    expect(first.status).toBe(200);
    expect(first.headers["x-reposite-edge"]).toBe("nginx");
    const seen = JSON.parse(first.body) as { path: string; headers: Record<string, string> };
    expect(seen.path).toBe("/me?x=1");
    expect(seen.headers["x-reposite-member-id"]).toMatch(/^member_/);
    expect(seen.headers["x-reposite-member-email"]).toBe(`ada-${run}@example.com`);
    expect(seen.headers.cookie).toBe("theme=dark; lang=en");
    expect(seen.headers["x-forwarded-prefix"]).toBe("/app");
    // The decision is nginx's to keep for a few seconds: with Node frozen the member still gets the app.
    const frozen = await withNodeStopped(() => send(port, "/app/me", headers, { timeoutMs: 2_000 }));
    expect(frozen.status).toBe(200);
    expect(JSON.parse(frozen.body).headers["x-reposite-member-id"]).toBe(seen.headers["x-reposite-member-id"]);
  });

  it("holds a sign-out within the cache bound", async () => {
    const cookie = await signUp(`bob-${run}@example.com`);
    expect((await send(port, "/app/me", { host, cookie })).status).toBe(200); // the decision is kept now
    await signOut(cookie);
    const signedOut = Date.now();
    let answer: Answer;
    // Timed by when each request was sent, not when its answer came back (a busy machine may be
    // slow to answer): a member's request sent past the bound and still let in is a failure.
    for (let sentAt = Date.now(); (answer = await send(port, "/app/me", { host, cookie })).status === 200; sentAt = Date.now()) {
      expect(sentAt - signedOut).toBeLessThan(GATE_CACHE_MS + 1_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer.status).toBe(302);
  });

  it("makes an app's cookie under a Reposite name one a browser refuses, while the app's own cookie is kept", async () => {
    const member = await signUp(`cy-${run}@example.com`);
    const answer = await send(port, "/app/plant", { host, cookie: member });
    expect(answer.headers["x-reposite-edge"]).toBe("nginx");
    // Stock nginx cannot drop one Set-Cookie line; it changes the flags so browsers refuse these.
    expect(answer.headers["set-cookie"]).toEqual(["__Host-reposite_member=planted; Path=/", "reposite_member=planted; Path=/; Secure", "app_ok=1; Path=/"]);
    const [name, value] = member.split("=") as [string, string];
    // A real browser on this http site: the member's own session is not replaced (a Secure cookie from an
    // http page is refused). The __Host- name without Secure is refused by its prefix rule (https sites).
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--host-resolver-rules=MAP *.sites.test 127.0.0.1"],
    });
    try {
      const context = await browser.newContext();
      await context.addCookies([{ name, value, url: origin }]);
      const page = await context.newPage();
      expect((await page.goto(`${origin}/app/plant`))?.status()).toBe(200);
      const kept = Object.fromEntries((await context.cookies(origin)).map((cookie) => [cookie.name, cookie.value]));
      expect(kept).toEqual({ [name]: value, app_ok: "1" });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("answers a stopped app's /app/ with the 503 page in the site's design from nginx, as the Node runtime answers it", async () => {
    await api(`/app/sites/${siteId}`, json({ auth_redirect_to_app: false }, undefined, "PATCH"));
    await api(`/app/sites/${siteId}/deployment/stop`, { method: "POST" });
    for (const deadline = Date.now() + 15_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      const answer = await send(port, "/app/", { host });
      if (answer.status === 503 && answer.headers["x-reposite-edge"] === "nginx") break;
      if (Date.now() > deadline) throw new Error(`nginx did not answer the 503 page: ${answer.status} ${JSON.stringify(answer.headers)} ${(await readFile(join(dataDir, "edge", "error.log"), "utf8")).slice(-500)}`);
    }
    // Node's own answer: a visitor carrying a Reposite cookie is sent to Reposite (through /app, so it is marked too).
    const fromNode = await send(port, "/app/reports?week=3", { host, cookie: "reposite_x=1" });
    expect(fromNode.status).toBe(503);
    const compared = ["content-type", "cache-control", "retry-after", "x-content-type-options", "x-frame-options", "referrer-policy", "content-security-policy"];
    const pick = (answer: Answer) => Object.fromEntries(compared.map((name) => [name, answer.headers[name]]));
    await withNodeStopped(async () => {
      for (const method of ["GET", "POST"]) {
        const fromNginx = await send(port, "/app/reports?week=3", { host, "content-type": "text/plain" }, { method, body: method === "POST" ? "x" : undefined, timeoutMs: 2_000 });
        expect(fromNginx.status).toBe(503);
        expect(fromNginx.headers["x-reposite-edge"]).toBe("nginx");
        expect(pick(fromNginx)).toEqual(pick(fromNode));
        expect(fromNginx.body).toBe(fromNode.body);
      }
    });
    expect(fromNode.headers["retry-after"]).toBe("300");
    expect(fromNode.body).toContain("The app of this site is stopped.");
  });
});
