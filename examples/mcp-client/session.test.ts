import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer, type RunningServer } from "@reposite/server";
import { getWithHost, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";

// The example as a newcomer runs it (built packages: `npm run build` first), against a real
// server on a socket with a loopback GitHub behind it.
const script = fileURLToPath(new URL("./session.mjs", import.meta.url));
const run = promisify(execFile);

let github: FakeGitHub;
let server: RunningServer;
let dataDir: string;
let token: string;

beforeAll(async () => {
  github = await startFakeGitHub({
    repos: [{ owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: "# Rocket CLI\n\nLaunch rockets.\n" }],
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-mcp-example-"));
  server = await startServer({
    settings: {
      listen: { port: 0, hostname: "127.0.0.1" },
      reposite: {
        config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
      },
    },
  });
  const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
  token = (await server.reposite.tokens.create(account.id, { name: "example", lifetime: "30d" })).secret;
});
afterAll(async () => {
  await server?.close();
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("lists the tools, creates, generates and publishes through the MCP server, and prints the live URL", async () => {
  const { stdout } = await run(process.execPath, [script, "https://github.com/acme/rocket-cli"], {
    env: { PATH: process.env.PATH, REPOSITE_URL: server.url, REPOSITE_TOKEN: token },
  });
  expect(stdout).toMatch(/^Tools: .*create_project.*generate_site.*publish_site/m);
  expect(stdout).toMatch(/^Pages written: template, about$/m);
  // The server's progress reports, as the page chain went on.
  expect(stdout).toMatch(/^ {2}… Writing template \(1 of 2\)\.$/m);
  const url = /^Published: (\S+)$/m.exec(stdout)?.[1];
  expect(url).toBe("http://rocket-cli.sites.test");
  const home = await getWithHost(`${server.url}/`, "rocket-cli.sites.test");
  expect(home.status).toBe(200);
  expect(home.body).toContain("Launch rockets from your terminal.");
});

it("without a token, ends with the server's word on how to get one", async () => {
  const failed = await run(process.execPath, [script, "https://github.com/acme/rocket-cli"], {
    env: { PATH: process.env.PATH, REPOSITE_URL: server.url },
  }).catch((error: { code: number; stderr: string }) => error);
  expect(failed).toMatchObject({ code: 1 });
  expect((failed as { stderr: string }).stderr).toMatch(/no_token: .*REPOSITE_TOKEN/);
  expect((failed as { stderr: string }).stderr).toContain(`${server.url}/account`);
});
