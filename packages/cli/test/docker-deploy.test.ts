import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDockerRuntime } from "@reposite/provider-docker";
import { startServer, type RunningServer } from "@reposite/server";
import { buildLocalBaseImages, dockerForTests, removeLabelled, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, cli, runCli } from "./run-cli.js";

// deploy --follow, logs and env through the binary, with apps built and run on the real Docker
// Engine. Skipped without Docker, unless REPOSITE_REQUIRE_DOCKER=1 (CI), where that fails.
const engine = await dockerForTests();
const LABEL = "reposite-test.run";

describe.skipIf(!engine.available)("reposite deploy on the Docker Engine", () => {
  const run = `cli-${randomBytes(4).toString("hex")}`;
  let github: FakeGitHub;
  let server: RunningServer;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    const images = await buildLocalBaseImages();
    const Dockerfile = [
      `FROM ${images.busybox}`,
      `LABEL ${LABEL}=${run}`,
      "RUN mkdir -p /www && echo ok > /www/index.html",
      `CMD ["sh", "-c", "echo app-ready; echo greeting $GREETING; exec httpd -f -p 3000 -h /www"]`,
      "",
    ].join("\n");
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "webapp", description: "A web app", topics: [], files: { Dockerfile } }] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-docker-"));
    server = await startServer({
      settings: {
        listen: { port: 0, hostname: "127.0.0.1" },
        reposite: {
          config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
          github: { apiUrl: github.url, webHosts: ["github.com"] },
          secretKey: Buffer.alloc(32, 7).toString("base64"),
          containerRuntime: createDockerRuntime(),
          hosting: { healthTimeoutMs: 15_000, healthIntervalMs: 100, drainTimeoutMs: 500, logFlushMs: 20, stopGraceSeconds: 1, buildMemoryMb: 512, labels: { [LABEL]: run } },
        },
      },
    });
    const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
    const token = (await server.reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" })).secret;
    env = { REPOSITE_URL: server.url, REPOSITE_TOKEN: token, XDG_CONFIG_HOME: dataDir };
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await github?.close();
    await removeLabelled(LABEL, run);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("deploys with the live build log, shows the app's output, and restarts it with new env (values masked)", async () => {
    const site = JSON.parse((await cli(["sites", "create", "acme/webapp", "--json"], env)).stdout) as { id: string };
    const deployed = await cli(["deploy", site.id, "--follow"], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toMatch(/#\d+ \[2\/2\] RUN mkdir -p \/www/);
    expect(deployed.stdout).toContain("Image built.");
    expect(deployed.stdout).toMatch(/✓ Deployed: http:\/\/webapp\.sites\.test\/app\/\n$/);

    const status = JSON.parse((await cli(["status", site.id, "--json"], env)).stdout);
    expect(status.deployment).toMatchObject({ status: "running", build_mode: "dockerfile", last_run: { status: "done" } });

    const logs = await cli(["logs", site.id], env);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain("app-ready\n");

    // A new value restarts the running app; the app prints it, and logs mask it.
    expect((await cli(["env", "set", site.id, "GREETING=hello-docker"], env)).code).toBe(0);
    const follow = runCli(["logs", site.id, "-f", "--tail", "5"], env);
    await follow.waitFor(/greeting \*\*\*/);
    follow.child.kill("SIGINT");
    expect(await follow.exit).toBe(0);
    expect(follow.output().stdout).not.toContain("hello-docker");
  }, 180_000);
});
