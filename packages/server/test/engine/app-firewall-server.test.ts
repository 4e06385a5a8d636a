import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, docker, dockerForTests, freePort, getWithHost, removeLabelled, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../harness.js";
import { startServerProcess, type ServerProcess } from "../server-process.js";

const engine = await dockerForTests();
const root = process.getuid?.() === 0;
if (engine.available && engine.required && !root) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but the app firewall test needs root (iptables)");

const RUN_LABEL = "reposite-test.run";
const run = `firewall-server-${randomBytes(4).toString("hex")}`;
const DENIED = "203.0.113.0/24";
const iptables = async (args: string[]) => (await promisify(execFile)("iptables", ["-w", ...args])).stdout;

/**
 * The app firewall as the server runs it: `reposite serve` installs it at start and says so, an app
 * it deploys cannot reach a host service through its gateway while the health check and `/app/`
 * still reach the app, a restart adds nothing twice, and removing the app removes its rules.
 */
describe.skipIf(!engine.available || !root)("app firewall in a real server process", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let token = "";
  let server: ServerProcess | undefined;
  let hostService: Server;
  let hostPort = 0;
  let siteId = "";
  const slug = `fw-${randomBytes(3).toString("hex")}`;
  let port = 0;

  const env = () => ({ REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url, REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`, REPOSITE_APP_DENY_CIDRS: DENIED });
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${server!.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> => {
    for (const deadline = Date.now() + timeoutMs; ; ) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  const appContainer = async () => (await docker(["ps", "-q", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", "label=dev.reposite.role=app"])).stdout.trim().split("\n")[0]!;
  const networkIdOf = async (container: string) => (await docker(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.NetworkID}}{{end}}", container])).stdout.trim();
  const gatewayOf = async (container: string) => (await docker(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.Gateway}}{{end}}", container])).stdout.trim();
  const reach = async (container: string, address: string, target: number) => {
    const request = `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${address} ${target}`;
    return (await docker(["exec", container, "sh", "-c", request], { timeoutMs: 15_000 }).catch(() => ({ stdout: "" }))).stdout.includes("host-service");
  };

  beforeAll(async () => {
    const images = await buildLocalBaseImages();
    const dockerfile = [`FROM ${images.busybox}`, `LABEL ${RUN_LABEL}=${run}`, "RUN mkdir /www && echo probe > /www/index.html", 'CMD ["httpd", "-f", "-p", "8080", "-h", "/www"]', ""].join("\n");
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "probe", files: { Dockerfile: dockerfile, "README.md": "# Probe\n\nAn app that tries addresses.\n" } }] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-firewall-"));
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await reposite.accounts.findOrCreate("ada@example.com");
    token = (await reposite.tokens.create(account.id, { name: "firewall", lifetime: "30d" })).secret;
    await reposite.close();
    hostService = createServer((_, response) => response.end("host-service\n"));
    await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
    hostPort = (hostService.address() as { port: number }).port;
    port = await freePort();
  }, 120_000);

  afterAll(async () => {
    await server?.kill();
    hostService?.close();
    await github?.close();
    await removeLabelled(RUN_LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("says at start that apps are firewalled, deploys an app that cannot reach the host while the health check and /app/ reach it", async () => {
    server = await startServerProcess(port, env());
    expect(server.output().stdout).toMatch(new RegExp(`app hosting: docker .*; apps kept from the host, each other and 169\\.254\\.0\\.0/16, ${DENIED.replace(/\./g, "\\.")} \\(iptables`));
    siteId = (await api<{ id: string }>("/app/sites", json({ repohost_url: "https://github.com/acme/probe", name: "probe" }))).id;
    for (let job: string | null | undefined = (await api<{ job_id: string }>(`/app/sites/${siteId}/generate`, json({ mode: "landing" }))).job_id; job; ) {
      const finished = await until(() => api<{ finished_at: string | null; next_job_id?: string | null }>(`/app/jobs/${job}`), (value) => value.finished_at !== null);
      job = finished.next_job_id;
    }
    await api(`/app/sites/${siteId}/slug`, json({ slug }));
    await api(`/app/sites/${siteId}/publish`, json({}));
    await api(`/app/sites/${siteId}/deployment`, json({ port: 8080 }, undefined, "PUT"));
    await api(`/app/sites/${siteId}/deployment/deploy`, { method: "POST" });
    // Running means the server's health check reached the app through the firewall.
    const deployment = await until(() => api<{ status: string }>(`/app/sites/${siteId}/deployment`), (value) => value.status === "running" || value.status === "failed");
    expect(deployment.status, JSON.stringify(deployment)).toBe("running");
    expect(await getWithHost(`${server.url}/app/`, `${slug}.localhost:${port}`)).toMatchObject({ status: 200, body: "probe\n" });

    const app = await appContainer();
    expect(await reach(app, await gatewayOf(app), hostPort)).toBe(false);
    const short = (await networkIdOf(app)).slice(0, 12);
    expect(await iptables(["-S", `REPOSITE-FWD-${short}`])).toContain(`-d ${DENIED} -j REJECT`);
  }, 240_000);

  it("after a restart the app still serves and is still held, with one copy of every rule; removing the app removes its rules", async () => {
    await server!.stop();
    server = await startServerProcess(port, env());
    expect(server.output().stdout).toMatch(/app hosting: docker .*\(1 app running\).*; apps kept from the host/);
    const app = await appContainer();
    const short = (await networkIdOf(app)).slice(0, 12);
    const count = (listing: string, ending: string) => listing.split("\n").filter((line) => line.endsWith(ending)).length;
    expect(count(await iptables(["-S", "DOCKER-USER"]), "-j REPOSITE-APPS")).toBe(1);
    expect(count(await iptables(["-S", "INPUT"]), "-j REPOSITE-APPS-INPUT")).toBe(1);
    expect(count(await iptables(["-S", "REPOSITE-APPS"]), `-j REPOSITE-FWD-${short}`)).toBe(1);
    expect(count(await iptables(["-S", "REPOSITE-APPS-INPUT"]), `-j REPOSITE-IN-${short}`)).toBe(1);
    expect(await getWithHost(`${server.url}/app/`, `${slug}.localhost:${port}`)).toMatchObject({ status: 200, body: "probe\n" });
    expect(await reach(app, await gatewayOf(app), hostPort)).toBe(false);

    await api(`/app/sites/${siteId}/deployment`, { method: "DELETE" });
    expect((await iptables(["-S"])).split("\n").filter((line) => line.includes(short))).toEqual([]);
  }, 120_000);

  it("says loudly at start, on stdout and stderr, when it cannot install the firewall (no iptables here)", async () => {
    await server!.stop();
    // No sbin on the PATH: iptables cannot be found, as on a machine without it.
    server = await startServerProcess(await freePort(), { ...env(), PATH: "/usr/local/bin:/usr/bin" });
    expect(server.output().stdout).toMatch(/app hosting: docker .*; APPS CAN REACH THIS HOST: the app firewall is off, iptables cannot change this machine's firewall \(iptables: .*\); it needs root, iptables and a local Docker Engine \(see docs\/deploy\/app-network\.md\)/);
    expect(server.output().stderr).toContain("[reposite] APPS CAN REACH THIS HOST");
  }, 60_000);
});
