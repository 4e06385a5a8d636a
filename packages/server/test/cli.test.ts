import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

// The CLI is tested as operators run it: the built bin in its own process.
const BIN = join(import.meta.dirname, "../bin/reposite.mjs");
const DIST = join(import.meta.dirname, "../dist/index.js");

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exit, output: () => ({ stdout, stderr }) };
}

let dataDir: string;
beforeAll(() => {
  if (!existsSync(DIST)) throw new Error("packages/server/dist is missing: run `npm run build` (npm test does it first).");
});
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "reposite-cli-"));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe("reposite admin create-token", () => {
  it("creates the account when new and prints only the token secret on stdout", async () => {
    const first = run(["admin", "create-token", "--email", "Ops@Example.com", "--name", "deploy bot", "--expires", "1y"], {
      REPOSITE_DATA_DIR: dataDir,
    });
    expect(await first.exit).toBe(0);
    const secret = first.output().stdout;
    expect(secret).toMatch(/^rps_[0-9A-Za-z]{36}\n$/);
    expect(first.output().stderr).toContain("Created account ops@example.com");

    const second = run(["admin", "create-token", "--email", "ops@example.com", "--name", "laptop"], { REPOSITE_DATA_DIR: dataDir });
    expect(await second.exit).toBe(0);
    expect(second.output().stderr).not.toContain("Created account");

    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    try {
      const who = await reposite.tokens.authenticate(secret.trim());
      expect(who.account.email).toBe("ops@example.com");
      expect(who.token).toMatchObject({ name: "deploy bot", source: "account" });
      expect(await reposite.tokens.list(who.account.id)).toHaveLength(2);
    } finally {
      await reposite.close();
    }
  });

  it.each([
    [["admin", "create-token", "--name", "x"], "--email and --name are required"],
    [["admin", "create-token", "--email", "a@b.co", "--name", "x", "--expires", "2w"], "--expires must be one of"],
    [["admin", "create-token", "--email", "not-an-email", "--name", "x"], "valid email"],
    [["admin", "frobnicate"], "Unknown command"],
  ])("refuses %j with a clear message and prints no secret", async (args, message) => {
    const result = run(args, { REPOSITE_DATA_DIR: dataDir });
    expect(await result.exit).not.toBe(0);
    expect(result.output().stderr).toContain(message);
    expect(result.output().stdout).not.toContain("rps_");
  });
});

describe("reposite serve", () => {
  it("prints where it listens, answers health checks and shuts down cleanly on SIGTERM", async () => {
    const server = run(["serve"], { REPOSITE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening on (http:\/\/\S+)/.exec(server.output().stdout);
        if (match) {
          clearInterval(timer);
          resolve(match[1]!);
        }
      }, 50);
      server.exit.then(() => reject(new Error(`server exited early: ${server.output().stderr}`)));
    });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    server.child.kill("SIGTERM");
    expect(await server.exit).toBe(0);
    expect(server.output().stdout).toContain("Received SIGTERM, shutting down.");
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
