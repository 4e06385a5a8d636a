import { randomBytes } from "node:crypto";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dockerForTests, freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../server-process.js";

// A data directory written by the release before hosting's records were split from the project
// record (`fixtures/previous-release`: its project records embed `deployment`, `wizard` and
// `current_pages`) is served the same by `reposite serve` now: the list, each project, its app, its
// env and its page versions (which is current) answer what that release answered; the app moved to
// `deployments:<site_id>`, the plan to `plans:<site_id>` and the current pages to
// `current-pages:<site_id>` once, and a second start changes nothing.

const engine = await dockerForTests();
const FIXTURE = join(import.meta.dirname, "fixtures/previous-release");

interface Captured {
  token: string;
  secretKey: string;
  app: string;
  plain: string;
  env: Record<string, string>;
  answers: Record<"list" | "app" | "plain" | "deployment" | "env" | "versions", unknown>;
}

describe.skipIf(!engine.available)("a data directory of the previous release", () => {
  let captured: Captured;
  let dataDir: string;
  let server: ServerProcess | undefined;
  const label = `previous-${randomBytes(4).toString("hex")}`;

  const start = async () => {
    server = await startServerProcess(await freePort(), {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_SECRET_KEY: captured.secretKey,
      REPOSITE_HOSTING: "docker",
      REPOSITE_APP_LABELS: `reposite-test.run=${label}`,
      REPOSITE_SITES_DOMAIN: captured.env.REPOSITE_SITES_DOMAIN!,
      REPOSITE_BASE_URL: captured.env.REPOSITE_BASE_URL!,
      // Nothing here asks the code host; a closed port keeps it off the network.
      REPOSITE_GITHUB_API_URL: "http://127.0.0.1:9",
    });
  };
  const answers = async () => {
    const get = async (path: string) => {
      const response = await fetch(`${server!.url}${path}`, { headers: { authorization: `Bearer ${captured.token}` } });
      expect(response.status, path).toBe(200);
      return response.json();
    };
    return {
      list: await get("/app/sites"),
      app: await get(`/app/sites/${captured.app}`),
      plain: await get(`/app/sites/${captured.plain}`),
      deployment: await get(`/app/sites/${captured.app}/deployment`),
      env: await get(`/app/sites/${captured.app}/deployment/env`),
      versions: await get(`/app/sites/${captured.plain}/versions`),
    };
  };
  const record = async (key: string) => JSON.parse(await readFile(join(dataDir, "records", ...key.split(":")), "utf8")) as Record<string, unknown>;

  beforeAll(async () => {
    captured = JSON.parse(await readFile(join(FIXTURE, "answers.json"), "utf8")) as Captured;
    dataDir = await mkdtemp(join(tmpdir(), "reposite-previous-release-"));
    await cp(join(FIXTURE, "records"), join(dataDir, "records"), { recursive: true });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers the list, the projects, the app and its env as that release did, with the app, the plan and the current pages in records of their own", async () => {
    expect("deployment" in (await record(`projects:${captured.app}`))).toBe(true);
    await start();
    expect(await answers()).toEqual(captured.answers);
    // Moved once: the project keeps its own fields, hosting has the app (env still sealed).
    const project = await record(`projects:${captured.app}`);
    expect("deployment" in project).toBe(false);
    expect((await record(`deployments:${captured.app}`)).setup).toMatchObject({ port: 8080, health_path: "/health" });
    expect(JSON.stringify(await record(`deployments:${captured.app}`))).not.toContain("s3cret");
    expect(existsSync(join(dataDir, "records", "deployments", captured.plain))).toBe(false);
    expect("wizard" in (await record(`projects:${captured.plain}`))).toBe(false);
    expect(await record(`plans:${captured.plain}`)).toEqual({ mode: "website", pages: ["about", "faq"], community: false });
    expect(existsSync(join(dataDir, "records", "plans", captured.app))).toBe(false);
    expect("current_pages" in (await record(`projects:${captured.plain}`))).toBe(false);
    expect(Object.keys(await record(`current-pages:${captured.plain}`)).sort()).toEqual(["about", "template"]);

    // A second start finds the step done and serves the same.
    await server!.stop();
    const before = await record(`deployments:${captured.app}`);
    await start();
    expect(await answers()).toEqual(captured.answers);
    expect(await record(`deployments:${captured.app}`)).toEqual(before);
  }, 60_000);
});
