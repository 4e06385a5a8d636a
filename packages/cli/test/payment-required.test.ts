import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@reposite/server";
import { createMemoryContainerRuntime, createMemoryPayments, startFakeGitHub, type FakeGitHub, type MemoryContainerRuntime } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { assertBuilt, cli } from "./run-cli.js";

// A server that sells app hosting and domains: before paying, the CLI exits 5.
let github: FakeGitHub;
let runtime: MemoryContainerRuntime;
let server: RunningServer;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  assertBuilt();
  github = await startFakeGitHub({ repos: [{ owner: "acme", name: "rocket", description: "Rockets", topics: [], files: { Dockerfile: "FROM node:22\n" } }] });
  runtime = createMemoryContainerRuntime();
  dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-pay-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
        containerRuntime: runtime,
        payments: createMemoryPayments(),
      },
    },
  });
  const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
  const token = (await server.reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" })).secret;
  env = { REPOSITE_URL: server.url, REPOSITE_TOKEN: token, XDG_CONFIG_HOME: dataDir };
});
afterAll(async () => {
  await server?.close();
  await runtime?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("deploy and domain set exit 5 with payment_required until paid", async () => {
  const site = JSON.parse((await cli(["sites", "create", "acme/rocket", "--json"], env)).stdout) as { id: string };
  for (const args of [
    ["deploy", site.id, "--json"],
    ["domain", "set", site.id, "www.rocket.example", "--json"],
  ]) {
    const result = await cli(args, env);
    expect(result.code, result.stderr).toBe(5);
    expect(JSON.parse(result.stderr)).toMatchObject({ code: "payment_required", status: 402 });
    expect(result.stdout).toBe("");
  }
  const human = await cli(["deploy", site.id], env);
  expect(human.code).toBe(5);
  expect(human.stderr).toMatch(/^reposite: .+/);
});
