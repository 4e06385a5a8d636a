import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { docker, dockerForTests, freePort, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "./harness.js";
import { BIN, startServerProcess } from "./server-process.js";

const engine = await dockerForTests();

/**
 * `reposite serve` decides once, at start, whether it hosts apps: when a Docker Engine answers
 * (`DOCKER_HOST` or the default socket) and REPOSITE_HOSTING is not `off`. Its start-up output says
 * which, and everything that needs hosting follows that one fact.
 */
describe("app hosting at start-up, in a real server process", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let token: string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "web", files: { Dockerfile: "FROM node:22\n" } }] });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-hosting-start-"));
    const created = await promisify(execFile)(process.execPath, [BIN, "admin", "create-token", "--email", "ada@example.com", "--name", "test"], {
      env: { ...process.env, REPOSITE_DATA_DIR: dataDir },
    });
    token = created.stdout.trim();
  });
  afterAll(async () => {
    await github.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string>) => ({ REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url, ...extra });
  const newSite = async (url: string) => (await (await fetch(`${url}/app/sites`, json({ repohost_url: "github.com/acme/web" }, token))).json()).id as string;

  it("says hosting is off when no Engine answers, and hosting routes and saas generation answer 503", async () => {
    const socket = join(tmpdir(), `no-docker-${randomBytes(4).toString("hex")}.sock`);
    const server = await startServerProcess(await freePort(), env({ DOCKER_HOST: `unix://${socket}` }));
    try {
      expect(server.output().stdout).toContain(`app hosting: off: no Docker Engine answered at unix://${socket}`);
      const site = await newSite(server.url);
      const setup = await fetch(`${server.url}/app/sites/${site}/deployment`, json({}, token, "PUT"));
      expect(setup.status).toBe(503);
      await expect(setup.json()).resolves.toMatchObject({ code: "hosting_unavailable" });
      const saas = await fetch(`${server.url}/app/sites/${site}/generate`, json({ mode: "saas" }, token));
      expect(saas.status).toBe(503);
      await expect(saas.json()).resolves.toMatchObject({ code: "hosting_unavailable" });
    } finally {
      await server.stop();
    }
  });

  it("says hosting is off with REPOSITE_HOSTING=off, whatever engine there is", async () => {
    const server = await startServerProcess(await freePort(), env({ REPOSITE_HOSTING: "off" }));
    try {
      expect(server.output().stdout).toContain("app hosting: off: turned off (REPOSITE_HOSTING=off)");
      const site = await newSite(server.url);
      expect((await fetch(`${server.url}/app/sites/${site}/deployment`, json({}, token, "PUT"))).status).toBe(503);
    } finally {
      await server.stop();
    }
  });

  describe.skipIf(!engine.available)("with a Docker Engine", () => {
    const run = `hosting-start-${randomBytes(4).toString("hex")}`;
    afterAll(async () => {
      const ids = (await docker(["ps", "-aq", "--filter", `label=reposite-test.run=${run}`])).stdout.split("\n").filter(Boolean);
      if (ids.length) await docker(["rm", "-f", ...ids]);
    });

    it("names the engine it hosts apps on and the two ports it goes through, and hosting routes work", async () => {
      const server = await startServerProcess(await freePort(), env({ REPOSITE_APP_LABELS: `reposite-test.run=${run}` }));
      try {
        expect(server.output().stdout).toMatch(/app hosting: docker \d+\.\d+\S* \(0 apps running\)/);
        // Core hosts apps through the two ports, both provider-docker's adapters over the one Engine.
        expect(server.output().stdout).toMatch(/app hosting: docker .*; through ImageBuilder docker \d+\.\d+\S* and AppRuntime docker \d+\.\d+\S* \(caller rollout\)/);
        const site = await newSite(server.url);
        expect((await fetch(`${server.url}/app/sites/${site}/deployment`, json({}, token, "PUT"))).status).toBe(201);
        const saas = await fetch(`${server.url}/app/sites/${site}/generate`, json({ mode: "saas" }, token));
        expect(saas.status).toBe(202);
      } finally {
        await server.stop();
      }
    });
  });
});
