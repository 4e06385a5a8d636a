import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort,startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";

// The README's quick start as a newcomer runs it (the built packages, a fresh data directory),
// with a loopback GitHub in place of github.com, which tests never reach.
const script = fileURLToPath(new URL("./quickstart.mjs", import.meta.url));

let github: FakeGitHub;
let dataDir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  github = await startFakeGitHub({
    repos: [{ owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: "# Rocket CLI\n\nLaunch rockets from your terminal.\n\n## Install\n\n`npm i -g rocket-cli`\n" }],
    // One host for API and web pages, as a GitHub Enterprise server: links are http://127.0.0.1:<port>/acme/rocket-cli.
    webHost: "self",
  });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-quickstart-"));
});

afterAll(async () => {
  child?.kill("SIGTERM");
  await github?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it("creates a project, writes its pages, publishes them and serves the site at <slug>.localhost:<port>", async () => {
  const port = await freePort();
  child = spawn(process.execPath, [script, `${github.url}/acme/rocket-cli`], {
    env: { PATH: process.env.PATH, PORT: String(port), REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    child!.stdout!.on("data", () => output.includes("Press Ctrl-C") && resolve());
    child!.once("exit", (code) => reject(new Error(`quickstart exited ${code}:\n${output}`)));
  });

  expect(output).toContain(`Reposite is serving on http://127.0.0.1:${port}`);
  expect(output).toMatch(/API token for you@example\.com[^\n]*\n {2}rps_/);
  expect(output).toMatch(/1\. Created project site_\S+ "rocket-cli"/);
  expect(output).toContain("the README author");
  expect(output).toContain(`3. Published 4 pages (template, about, faq, auth) at http://rocket-cli.localhost:${port}.`);
  expect(output).toContain(`open http://rocket-cli.localhost:${port}/ in a browser`);

  // The address it prints answers with the published page, as a browser would ask for it.
  const home = await get(port, "/", `rocket-cli.localhost:${port}`);
  expect(home.status).toBe(200);
  expect(home.body).toContain("Launch rockets from your terminal");
  expect((await get(port, "/sitemap.xml", `rocket-cli.localhost:${port}`)).body).toContain(`<loc>http://rocket-cli.localhost:${port}/about</loc>`);

  const exited = new Promise((resolve) => child!.once("exit", resolve));
  child.kill("SIGTERM");
  await expect(exited).resolves.toBe(0);
});

function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

