import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, type RunningServer } from "@reposite/server";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";

// The example as an agent runs it (node, the built SDK), against a real server; the test plays the
// person: it opens the link (through the server's core, as the browser tests do in Chromium),
// reads the code and types it, once wrong and then right.
const script = fileURLToPath(new URL("./agent.mjs", import.meta.url));
const sdkBuild = fileURLToPath(new URL("../../packages/sdk/dist/index.js", import.meta.url));

let server: RunningServer;
let github: FakeGitHub;
let dataDir: string;

beforeAll(async () => {
  if (!existsSync(sdkBuild)) throw new Error("packages/sdk/dist is missing: run `npm run build` (npm test does it first).");
  github = await startFakeGitHub({ repos: [{ owner: "acme", name: "ledger", description: "Double-entry accounting", topics: ["finance"] }] });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-sdk-agent-example-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, github: { apiUrl: github.url, webHosts: ["github.com"] } },
    },
  });
});
afterAll(async () => {
  await server?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("logs in with the code the person reads out, then lists the person's projects", async () => {
  const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
  await server.reposite.projects.create(account.id, { repohost_url: "https://github.com/acme/ledger" });
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, REPOSITE_URL: server.url },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const said = async (pattern: RegExp): Promise<RegExpExecArray> => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the example did not print ${pattern}:\n${output}`);
  };

  try {
    const [, link] = await said(/Open: (\S+)/);
    await said(/Code shown on the page/);
    const page = await server.reposite.agentLogin.approve(link!.split("/").pop()!, account);
    const code = page.code!;
    child.stdin.write("BCDF-GHJK\n");
    await said(/That code is not right \(4 tries left\)/);
    child.stdin.write(`${code.toLowerCase()}\n`);
    expect(await exited, output).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  expect(output).toContain("Signed in as ada@example.com. Projects:\n- ledger (https://github.com/acme/ledger)\n");
  // The token was issued to the agent and used: the server knows it as this account's agent token.
  const tokens = await server.reposite.tokens.list(account.id);
  expect(tokens).toEqual([expect.objectContaining({ source: "agent", name: "sdk-agent example" })]);
  expect(tokens[0]!.last_used_at).not.toBeNull();
});
