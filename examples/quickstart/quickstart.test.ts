import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort, getWithHost, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// The README's quick start as a newcomer runs it (the built packages, a fresh data directory),
// with a loopback GitHub in place of github.com, which tests never reach, or with no GitHub at all.
const script = fileURLToPath(new URL("./quickstart.mjs", import.meta.url));
const checkout = fileURLToPath(new URL("../..", import.meta.url)).replace(/[\\/]+$/, "");

let github: FakeGitHub;
let dataDir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  github = await startFakeGitHub({
    repos: [{ owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: "# Rocket CLI\n\nLaunch rockets from your terminal.\n\n## Install\n\n`npm i -g rocket-cli`\n" }],
    // One host for API and web pages, as a GitHub Enterprise server: links are http://127.0.0.1:<port>/acme/rocket-cli.
    webHost: "self",
  });
});
afterAll(() => github?.close());
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  child = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Run {
  port: number;
  output(): string;
  /** Resolves once the script says the site is up (it keeps serving), rejects if it exits first. */
  serving: Promise<void>;
  exited: Promise<number | null>;
}

async function quickstart(args: string[], env: Record<string, string>): Promise<Run> {
  dataDir = await mkdtemp(join(tmpdir(), "reposite-quickstart-"));
  const port = await freePort();
  child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH, PORT: String(port), REPOSITE_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
  const serving = new Promise<void>((resolve, reject) => {
    child!.stdout!.on("data", () => output.includes("Press Ctrl-C") && resolve());
    void exited.then((code) => reject(new Error(`quickstart exited ${code}:\n${output}`)));
  });
  serving.catch(() => {}); // runs that are meant to fail wait for `exited` instead
  return { port, output: () => output, serving, exited };
}

/** An address on loopback where nothing listens: GitHub out of reach. */
const unreachable = async () => `http://127.0.0.1:${await freePort()}`;

describe("the quick start", () => {
  it("creates a project, writes its pages, publishes them and serves the site at <slug>.localhost:<port>", async () => {
    const run = await quickstart([`${github.webUrl}/acme/rocket-cli`], { REPOSITE_GITHUB_API_URL: github.url, REPOSITE_GITHUB_WEB_URL: github.webUrl });
    await run.serving;
    const { port } = run;
    const output = run.output();
    expect(output).toContain(`Reposite is serving on http://127.0.0.1:${port}`);
    expect(output).toMatch(/API token for you@example\.com[^\n]*\n {2}rps_/);
    expect(output).toMatch(/1\. Created project site_\S+ "rocket-cli"/);
    expect(output).toContain("the README author");
    // Its README asks no question, so no FAQ page is made: the author makes up no questions.
    expect(output).toContain("faq: done, no page made (the README asks no question to answer)");
    expect(output).toContain(`3. Published 3 pages (template, about, auth) at http://rocket-cli.localhost:${port}.`);
    expect(output).toContain(`open http://rocket-cli.localhost:${port}/ in a browser`);

    // The address it prints answers with the published page, as a browser would ask for it.
    const home = await getWithHost(`http://127.0.0.1:${port}/`, `rocket-cli.localhost:${port}`);
    expect(home.status).toBe(200);
    expect(home.body).toContain("Launch rockets from your terminal");
    expect((await getWithHost(`http://127.0.0.1:${port}/sitemap.xml`, `rocket-cli.localhost:${port}`)).body).toContain(`<loc>http://rocket-cli.localhost:${port}/about</loc>`);

    child!.kill("SIGTERM");
    await expect(run.exited).resolves.toBe(0);
  });

  it("without GitHub, makes and publishes the site from this checkout", async () => {
    const run = await quickstart([], { REPOSITE_GITHUB_API_URL: await unreachable() });
    await run.serving;
    const output = run.output();
    expect(output).toContain("Could not read https://github.com/unjs/h3 from GitHub");
    expect(output).toContain(`Making the site from this checkout instead: ${checkout}`);
    expect(output).toContain(`from ${pathToFileURL(checkout).href} (design:`);
    expect(output).toMatch(/3\. Published \d pages \(template, about, (faq, )?auth\)/);

    const slug = new RegExp(`open http://([a-z0-9-]+)\\.localhost:${run.port}/ in a browser`).exec(output)?.[1];
    expect(slug, output).toBeDefined();
    const home = await getWithHost(`http://127.0.0.1:${run.port}/`, `${slug}.localhost:${run.port}`);
    expect(home.status).toBe(200);
    // This repository's own words (its README) on its published page.
    expect(home.body).toMatch(/a platform team embeds/i);
  });

  it("with --local, uses this checkout without asking GitHub", async () => {
    const before = github.requests.length;
    const run = await quickstart(["--local"], { REPOSITE_GITHUB_API_URL: github.url });
    await run.serving;
    expect(run.output()).toContain(`from ${pathToFileURL(checkout).href} (design:`);
    // Named after its README's title, not after the folder it was checked out to.
    expect(run.output()).toMatch(/1\. Created project site_\S+ "Reposite"/);
    expect(github.requests.length).toBe(before);
  });

  it("with PORT=0, prints the port it got in every address, and a command line that works as printed", async () => {
    const run = await quickstart([`${github.webUrl}/acme/rocket-cli`], { PORT: "0", REPOSITE_GITHUB_API_URL: github.url, REPOSITE_GITHUB_WEB_URL: github.webUrl });
    await run.serving;
    const output = run.output();
    const port = /Reposite is serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
    expect(Number(port), output).toBeGreaterThan(0);
    expect(output).not.toMatch(/:0\b/);
    expect(output).toContain(`3. Published 3 pages (template, about, auth) at http://rocket-cli.localhost:${port}.`);
    expect(output).toContain(`open http://rocket-cli.localhost:${port}/ in a browser`);
    expect(output).toContain(`open http://localhost:${port}/ for what this server offers`);
    expect((await getWithHost(`http://127.0.0.1:${port}/`, `rocket-cli.localhost:${port}`)).status).toBe(200);

    // The command line it prints, run as a newcomer pastes it: in a shell, from the repository.
    const line = /^ {2}(REPOSITE_URL=\S+ REPOSITE_TOKEN=\S+ npx reposite sites list)$/m.exec(output)?.[1];
    expect(line, output).toBeDefined();
    const home = await mkdtemp(join(tmpdir(), "reposite-quickstart-home-"));
    try {
      const listed = spawnSync("sh", ["-c", line!], { cwd: checkout, encoding: "utf8", env: { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", npm_config_update_notifier: "false" } });
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stderr).not.toMatch(/Which server|Not logged in/);
      expect(listed.stdout).toMatch(/rocket-cli/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it.each([
    ["a repository that does not exist", () => [`${github.webUrl}/acme/missing`], async () => ({ REPOSITE_GITHUB_API_URL: github.url, REPOSITE_GITHUB_WEB_URL: github.webUrl }), "does not exist"],
    ["a link GitHub cannot be asked about", () => ["https://github.com/acme/rocket-cli"], async () => ({ REPOSITE_GITHUB_API_URL: await unreachable() }), "GitHub could not be reached"],
    ["a path outside the folders it may read", () => ["/etc"], async () => ({}), "is not a link to a repository this server knows"],
  ])("exits non-zero with a clear message for %s", async (_case, args, env, reason) => {
    const run = await quickstart(args(), await env());
    await expect(run.exited).resolves.toBe(1);
    expect(run.output()).toContain(`No site could be made from ${args()[0]}`);
    expect(run.output()).toContain(reason);
    expect(run.output()).not.toContain("Press Ctrl-C");
  });
});
