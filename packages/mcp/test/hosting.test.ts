import { createMemoryContainerRuntime, getWithHost, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRepositeUnderTest, textOf, type McpSession, type RepositeUnderTest } from "./reposite-under-test.js";

// The hosting tools through the built bin and the MCP SDK's client, against a real server whose
// apps run in the in-memory container runtime (a test app that answers with its env).
let runtime: MemoryContainerRuntime;
let reposite: RepositeUnderTest;
let mcp: McpSession;

beforeAll(async () => {
  runtime = createMemoryContainerRuntime();
  reposite = await startRepositeUnderTest(
    [
      {
        owner: "acme",
        name: "rocket",
        description: "Launch rockets",
        topics: [],
        files: { Dockerfile: 'FROM node:22\nRUN echo building rocket\n# reposite-test: run log rocket ready\nCMD ["node", "server.js"]\n' },
      },
      { owner: "acme", name: "broken", description: "Does not build", topics: [], files: { Dockerfile: "FROM node:22\nRUN echo before\nRUN exit 3\n" } },
    ],
    { containerRuntime: runtime, hosting: { healthIntervalMs: 20, logFlushMs: 20 } },
  );
  mcp = await reposite.connect({ REPOSITE_URL: reposite.server.url, REPOSITE_TOKEN: await reposite.tokenFor("ada@example.com") });
});
afterAll(async () => {
  await reposite?.close();
  await runtime?.close();
});

const newSite = async (repository: string) =>
  ((await mcp.call("create_project", { repository })).structuredContent as { project: { id: string } }).project.id;

/** What the app answers at /app/ on the project's address: its container name and env as JSON. */
const appAnswer = async (slug: string) => getWithHost(`${reposite.server.url}/app/`, `${slug}.sites.test`);

it("sets up and deploys with env, follows to the end, and the app answers with it; logs, status and env tools work on it", async () => {
  const site = await newSite("https://github.com/acme/rocket");
  const progress: string[] = [];
  const deployed = (await mcp.client.callTool(
    { name: "deploy_app", arguments: { site_id: site, port: 8080, env: { GREETING: "hello" } } },
    undefined,
    { onprogress: (update) => void progress.push(update.message ?? "") },
  )) as Awaited<ReturnType<McpSession["call"]>>;
  expect(deployed.isError, textOf(deployed)).toBeFalsy();
  expect(deployed.structuredContent).toMatchObject({
    site_id: site,
    status: "running",
    url: "http://rocket.sites.test/app/",
    run_id: expect.stringMatching(/^run_/),
    run_status: "done",
    diagnosis: null,
    env_keys: ["GREETING"],
    build_log_tail: expect.stringContaining("building rocket"),
  });
  expect(progress[0]).toBe("Building.");

  const answer = await appAnswer("rocket");
  expect(answer.status).toBe(200);
  expect(answer.body).toContain('"GREETING":"hello"');
  expect(answer.body).toContain('"PORT":"8080"');

  // set_env: added and removed; the running app restarts with them; values never come back.
  const env = await mcp.call("set_env", { site_id: site, set: { MODE: "fast" }, unset: ["GREETING"] });
  expect(env.isError, textOf(env)).toBeFalsy();
  expect(env.structuredContent).toEqual({ site_id: site, names: ["MODE"] });
  expect(textOf(env)).not.toContain("fast");
  await expect.poll(async () => (await appAnswer("rocket")).body, { timeout: 10_000 }).toContain('"MODE":"fast"');
  expect((await appAnswer("rocket")).body).not.toContain("GREETING");
  const empty = await mcp.call("set_env", { site_id: site });
  expect(empty.structuredContent).toMatchObject({ error: { code: "invalid_request" } });

  await expect
    .poll(async () => ((await mcp.call("read_logs", { site_id: site, tail: 50 })).structuredContent as { logs: string }).logs, { timeout: 10_000 })
    .toContain("rocket ready");

  const status = await mcp.call("get_status", { site_id: site });
  expect(status.structuredContent).toMatchObject({
    site: { id: site, slug: "rocket" },
    app: { status: "running", url: "http://rocket.sites.test/app/", last_run: { status: "done", diagnosis: null }, env_keys: ["MODE"] },
  });

  const diagnosis = await mcp.call("read_diagnosis", { site_id: site });
  expect(diagnosis.structuredContent).toMatchObject({ run: { status: "done" }, diagnosis: null, log_tail: expect.stringContaining("building rocket") });
});

it("answers a failed deploy as a tool error with the diagnosis and the end of the build log; read_diagnosis tells it again", async () => {
  const site = await newSite("https://github.com/acme/broken");
  const deployed = await mcp.call("deploy_app", { site_id: site });
  expect(deployed.isError).toBe(true);
  expect(deployed.structuredContent).toMatchObject({
    error: {
      code: "deploy_failed",
      details: {
        status: "failed",
        run_status: "failed",
        diagnosis: { kind: "build_step_failed", title: expect.any(String), fix: expect.any(String) },
        build_log_tail: expect.stringContaining("before"),
      },
    },
  });
  const { diagnosis } = (deployed.structuredContent as { error: { details: { diagnosis: { title: string; fix: string } } } }).error.details;
  expect(textOf(deployed)).toContain(diagnosis.title);
  expect(textOf(deployed)).toContain(diagnosis.fix);

  const read = await mcp.call("read_diagnosis", { site_id: site });
  expect(read.isError).toBeFalsy();
  expect(read.structuredContent).toMatchObject({ run: { status: "failed" }, diagnosis: { kind: "build_step_failed", title: diagnosis.title } });
  expect(textOf(read)).toContain(diagnosis.title);
});

it("answers hosting calls on a project without an app, or someone else's, as tool errors with the API's code", async () => {
  const site = await newSite("https://github.com/acme/rocket");
  for (const name of ["read_logs", "read_diagnosis"]) {
    const answer = await mcp.call(name, { site_id: site });
    expect(answer.isError, name).toBe(true);
    const error = (answer.structuredContent as { error: { code: string; status: number } }).error;
    expect(error.status, name).toBeGreaterThanOrEqual(400);
    expect(textOf(answer)).toContain(`${error.status} ${error.code}`);
  }
  const other = await reposite.connect({ REPOSITE_URL: reposite.server.url, REPOSITE_TOKEN: await reposite.tokenFor("eve@example.com") });
  const foreign = await other.call("deploy_app", { site_id: site });
  expect(foreign.structuredContent).toMatchObject({ error: { code: "not_found", status: 404 } });
  const badEnv = await mcp.call("set_env", { site_id: site, set: { "1BAD": "x" } });
  expect(badEnv.isError).toBe(true);
});
