import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startServer, type RunningServer } from "@reposite/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BIN, cli, runCli } from "./run-cli.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");
const PACKAGE = join(import.meta.dirname, "..");

/** What an install of the packed CLI brings: the package and its dependencies' closure, nothing else. */
let installDir: string;
let installedBin: string;
let installed: string[];
let server: RunningServer;
let dataDir: string;

/** Packs a workspace package with npm and unpacks it as `node_modules/<name>` under `into`. */
async function packInto(packageDir: string, into: string): Promise<string> {
  const { name } = JSON.parse(await readFile(join(packageDir, "package.json"), "utf8")) as { name: string };
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", into], { cwd: packageDir });
  const target = join(into, "node_modules", name);
  await mkdir(target, { recursive: true });
  await run("tar", ["xzf", join(into, stdout.trim()), "-C", target, "--strip-components=1"]);
  return target;
}

/** Copies the third-party dependencies of `names`, and theirs, from the workspace's node_modules. */
async function copyDependencies(names: string[], into: string, done = new Set<string>()): Promise<void> {
  for (const name of names) {
    if (done.has(name)) continue;
    done.add(name);
    const source = join(ROOT, "node_modules", name);
    await cp(await realpath(source), join(into, "node_modules", name), { recursive: true, dereference: true });
    const manifest = JSON.parse(await readFile(join(source, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
    await copyDependencies(Object.keys(manifest.dependencies ?? {}), into, done);
  }
}

async function listInstalled(modules: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith("@")) for (const scoped of await readdir(join(modules, entry))) names.push(`${entry}/${scoped}`);
    else if (!entry.startsWith(".")) names.push(entry);
  }
  return names.sort();
}

beforeAll(async () => {
  assertBuilt();
  installDir = await mkdtemp(join(tmpdir(), "reposite-cli-install-"));
  const cliDir = await packInto(PACKAGE, installDir);
  const sdkDir = await packInto(join(ROOT, "packages/sdk"), installDir);
  const dependencies = async (dir: string) =>
    Object.keys((JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies).filter(
      (name) => !name.startsWith("@reposite/"),
    );
  await copyDependencies([...(await dependencies(cliDir)), ...(await dependencies(sdkDir))], installDir);
  installedBin = join(cliDir, "bin/reposite.mjs");
  installed = await listInstalled(join(installDir, "node_modules"));

  dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-install-data-"));
  server = await startServer({
    settings: { listen: { port: 0, hostname: "127.0.0.1" }, reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, repoHosts: [] } },
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  for (const dir of [installDir, dataDir]) if (dir) await rm(dir, { recursive: true, force: true });
});

describe("installing @reposite/cli", () => {
  it("depends on the SDK and citty only; the server is an optional peer", async () => {
    const manifest = JSON.parse(await readFile(join(PACKAGE, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@reposite/sdk", "citty"]);
    expect(manifest.peerDependencies).toEqual({ "@reposite/server": expect.any(String) });
    expect(manifest.peerDependenciesMeta).toEqual({ "@reposite/server": { optional: true } });
    expect(manifest.bin).toEqual({ reposite: "./bin/reposite.mjs" });
  });

  it("pulls in nothing of the server: no core, providers, Docker client or HTTP framework", () => {
    expect(installed).toEqual(expect.arrayContaining(["@reposite/cli", "@reposite/sdk", "citty", "ofetch"]));
    for (const heavy of ["@reposite/server", "@reposite/core", "@reposite/provider-docker", "dockerode", "h3", "zod", "tsyringe", "unstorage"]) {
      expect(installed).not.toContain(heavy);
    }
    expect(installed.length).toBeLessThan(10);
  });

  it("runs from that install against a server", async () => {
    const { account } = await server.reposite.accounts.findOrCreate("ada@example.com");
    const token = (await server.reposite.tokens.create(account.id, { name: "ci", lifetime: "30d" })).secret;
    const env = { REPOSITE_URL: server.url, REPOSITE_TOKEN: token, XDG_CONFIG_HOME: installDir };
    const who = await cli(["whoami", "--json"], env, { bin: installedBin });
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ user: { email: "ada@example.com" } });
    expect(await cli(["sites", "list", "--json"], env, { bin: installedBin })).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  it.each([["serve"], ["admin", "list-accounts"]])("%s without @reposite/server says how to install it and exits 2", async (...args) => {
    const result = await cli(args, { XDG_CONFIG_HOME: installDir }, { bin: installedBin });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("npm install @reposite/server");
    expect(result.stdout).toBe("");
  });
});

describe("serve and admin in the workspace go to the server's CLI", () => {
  it("npx reposite is this CLI; the server's bin is reposite-server", async () => {
    expect(await realpath(join(ROOT, "node_modules/.bin/reposite"))).toBe(await realpath(BIN));
    expect(await realpath(join(ROOT, "node_modules/.bin/reposite-server"))).toBe(await realpath(join(ROOT, "packages/server/bin/reposite.mjs")));
  });

  it("reposite serve serves, and stops on SIGTERM", async () => {
    const served = runCli(["serve"], { REPOSITE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", REPOSITE_HOSTING: "off" });
    const [, url] = await served.waitFor(/listening on (http:\/\/\S+)/);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    served.child.kill("SIGTERM");
    expect(await served.exit).toBe(0);
  });

  it("reposite admin create-token and serve --help are the server's", async () => {
    const made = await cli(["admin", "create-token", "--email", "ops@example.com", "--name", "bot"], { REPOSITE_DATA_DIR: join(installDir, "admin-data") });
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^rps_\w+\n$/);
    const help = await cli(["serve", "--help"], {});
    expect(help).toMatchObject({ code: 0 });
    expect(help.stdout).toContain("USAGE reposite serve");
  });
});
