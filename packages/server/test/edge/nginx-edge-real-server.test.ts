import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appUpstream, createReposite } from "@reposite/core";
import { buildLocalBaseImages, dockerAvailable, freePort, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFrame, rawWebSocket } from "../apps-in-a-real-server.js";
import { json } from "../harness.js";
import { fetchThroughReloads, startServerProcess, type ServerProcess } from "../server-process.js";

// `reposite serve` with REPOSITE_EDGE=nginx, in its own process, on the real Docker Engine and the
// machine's nginx: an app deployed through the API is served at /app/ by nginx itself.

const RUN_LABEL = "reposite-test.run";
const engine = await dockerAvailable();
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
const required = process.env.REPOSITE_REQUIRE_DOCKER === "1";
if (required && !engine) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but no Docker Engine answers");
if (required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

/** Answers what it received (path and headers) and echoes WebSocket text frames at /ws; its container's hostname tells deploys apart. */
const APP_JS = `
const http = require("node:http");
const crypto = require("node:crypto");
const server = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json", "set-cookie": "app_pref=1; Domain=localhost; Path=/" });
  res.end(JSON.stringify({ version: require("node:os").hostname(), path: req.url, headers: req.headers }));
});
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
  socket.on("data", (b) => {
    const len = b[1] & 127, mask = b.subarray(2, 6), text = Buffer.from(b.subarray(6, 6 + len).map((x, i) => x ^ mask[i % 4])).toString();
    const out = Buffer.from("echo " + text);
    socket.write(Buffer.concat([Buffer.from([0x81, out.length]), out]));
  });
  socket.on("error", () => {});
});
server.listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

function get(port: number, path: string, headers: Record<string, string>, timeoutMs?: number): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers, agent: false, ...(timeoutMs ? { timeout: timeoutMs } : {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`no answer to ${path} within ${timeoutMs} ms`)));
    req.end();
  });
}

describe.runIf(engine && nginxHere)("REPOSITE_EDGE=nginx in a real server process", () => {
  const run = `edge-${randomBytes(4).toString("hex")}`;
  let github: FakeGitHub;
  let dataDir: string;
  let port: number;
  let server: ServerProcess;
  let token: string;
  let siteId: string;
  let host: string;

  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetchThroughReloads(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const deploy = async () => {
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${siteId}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (job.finished_at && job.status !== "done") throw new Error(`deploy ended ${job.status}`);
      if (job.finished_at) return;
    }
    throw new Error("deploy did not finish");
  };
  /** The app's answer through nginx, once nginx has the route (a reload follows the deploy within a moment); `not` is a container that must not answer. */
  const servedByNginx = async (not = "") => {
    for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
      // A poll, not the load: a connection refused or reset while nginx reloads is asked again.
      const answer = await get(port, "/app/hello?x=1", { host }).catch((error: Error) => ({ status: 0, headers: {} as Record<string, string | undefined>, body: error.message }));
      if (answer.headers["x-reposite-edge"] === "nginx" && answer.status === 200 && JSON.parse(answer.body).version !== not) return JSON.parse(answer.body).version as string;
      if (Date.now() > deadline) throw new Error(`nginx did not serve a new container: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    const repo: FakeRepo = {
      owner: "acme",
      name: `edge-app-${run.slice(-8)}`,
      files: { Dockerfile: [`FROM ${images.node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": APP_JS },
    };
    github = await startFakeGitHub({ repos: [repo] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-edge-"));
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
    });
    siteId = (await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }))).id;
    await api(`/app/sites/${siteId}/deployment`, json({}, undefined, "PUT"));
    await deploy();
    host = `${(await api<{ slug: string }>(`/app/sites/${siteId}/deployment`)).slug}.localhost:${port}`;
  }, 300_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill();
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("says at start that nginx runs in front, and keeps its files under the data directory", async () => {
    expect(server.output().stdout).toMatch(new RegExp(`edge: nginx \\(nginx/[\\d.]+\\) on 127\\.0\\.0\\.1:${port} in front of Reposite on 127\\.0\\.0\\.1:\\d+`));
    // Reloads are coalesced: on a loaded machine the deployed app's route is written a moment later.
    await expect.poll(() => readFile(join(dataDir, "edge", "routes.conf"), "utf8"), { timeout: 10_000 }).toContain(`"${host.split(":")[0]}" ${appUpstream(siteId)};`);
  });

  it("serves /app/ through nginx straight to the app: /app stripped, X-Forwarded-* its own, the visitor's dropped, cookies kept to the host", async () => {
    // Node is frozen: whatever still answers /app/ is nginx talking to the app itself. Under a loaded
    // machine a reload may be under way at that moment: the frozen try is made again, up to three times.
    let answer: Awaited<ReturnType<typeof get>> | undefined;
    for (let attempt = 1; !answer; attempt++) {
      await servedByNginx();
      server.child.kill("SIGSTOP");
      try {
        answer = await get(port, "/app/hello?x=1", {
          host,
          "x-forwarded-for": "6.6.6.6",
          "x-forwarded-host": "evil.example",
          "x-forwarded-proto": "https",
          "x-forwarded-prefix": "/evil",
          forwarded: "for=6.6.6.6",
          "x-real-ip": "6.6.6.6",
          "x-reposite-member-id": "mbr_forged",
        }, 3_000);
      } catch (error) {
        if (attempt === 3) throw error;
      } finally {
        server.child.kill("SIGCONT");
      }
    }
    const served = answer!;
    expect(served.status).toBe(200);
    expect(served.headers["x-reposite-edge"]).toBe("nginx");
    const seen = JSON.parse(served.body) as { path: string; headers: Record<string, string> };
    expect(seen.path).toBe("/hello?x=1");
    expect(seen.headers).toMatchObject({ host, "x-forwarded-for": "127.0.0.1", "x-forwarded-proto": "http", "x-forwarded-host": host, "x-forwarded-prefix": "/app" });
    expect(seen.headers).not.toHaveProperty("forwarded");
    expect(seen.headers).not.toHaveProperty("x-real-ip");
    expect(seen.headers).not.toHaveProperty("x-reposite-member-id");
    // The app's cookie for a parent domain is held to the site's own host.
    expect(served.headers["set-cookie"]).toEqual([`app_pref=1; Domain=${host.split(":")[0]}; Path=/`]);
  });

  it("passes a WebSocket through /app/ to the app", async () => {
    const ws = await rawWebSocket(port, "/app/ws", { host });
    expect(ws.status).toBe(101);
    ws.socket.write(clientFrame(1, Buffer.from("hi")));
    for (const deadline = Date.now() + 5_000; Buffer.concat(ws.received).length < 9 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Buffer.concat(ws.received).subarray(2).toString()).toBe("echo hi");
    ws.socket.destroy();
  });

  it("sends the rest to Reposite: the API, and a site host's other paths", async () => {
    expect((await get(port, "/healthz", { host: `127.0.0.1:${port}` })).status).toBe(200);
    const page = await get(port, "/", { host });
    expect(page.headers["x-reposite-edge"]).toBeUndefined();
    expect([200, 404]).toContain(page.status);
  });

  it("switches to a redeployed app without a failed request under steady load", async () => {
    let stop = false;
    const failures: string[] = [];
    let done = 0;
    const worker = async () => {
      while (!stop) {
        const answer = await get(port, "/app/load", { host }).catch((error: Error) => ({ status: 0, body: error.message, headers: {} }));
        if (answer.status !== 200) failures.push(`${answer.status} ${answer.body.slice(0, 120)}`);
        done += 1;
      }
    };
    const load = Promise.all([worker(), worker(), worker(), worker()]);
    const before = await servedByNginx();
    await deploy();
    await servedByNginx(before);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the old container is drained and stopped meanwhile
    stop = true;
    await load;
    expect(failures).toEqual([]);
    expect(done).toBeGreaterThan(50);
  }, 200_000);

  it("stops nginx and itself on SIGTERM, within the shutdown bound", async () => {
    const pid = Number((await readFile(join(dataDir, "edge", "nginx.pid"), "utf8")).trim());
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(() => process.kill(pid, 0)).toThrow();
    await expect(get(port, "/healthz", { host: `127.0.0.1:${port}` })).rejects.toThrow();
  });
});
