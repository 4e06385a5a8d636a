import { connect as tlsConnect } from "node:tls";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:net";
import { createReposite } from "@reposite/core";
import { freePort } from "@reposite/test-support";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startServerProcess } from "./server-process.js";

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
      expect(who.token).toMatchObject({ name: "deploy bot", source: "operator" });
      expect(await reposite.tokens.list(who.account.id)).toHaveLength(2);
    } finally {
      await reposite.close();
    }
  });

  it("shows the token as made by the operator in the token list and on the account page", async () => {
    const made = run(["admin", "create-token", "--email", "ops@example.com", "--name", "deploy bot"], { REPOSITE_DATA_DIR: dataDir });
    expect(await made.exit).toBe(0);
    const secret = made.output().stdout.trim();
    // A browser session for the same account, as the emailed sign-in link would make it.
    const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
    let cookie: string;
    try {
      const { account } = await reposite.accounts.findOrCreate("ops@example.com");
      cookie = `reposite_session=${(await reposite.sessions.create(account.id)).secret}`;
    } finally {
      await reposite.close();
    }

    const server = await startServerProcess(await freePort(), { REPOSITE_DATA_DIR: dataDir });
    try {
      const tokens = await (await fetch(`${server.url}/app/tokens`, { headers: { authorization: `Bearer ${secret}` } })).json();
      expect(tokens).toEqual([expect.objectContaining({ name: "deploy bot", source: "operator" })]);
      const page = await (await fetch(`${server.url}/account`, { headers: { cookie } })).text();
      const row = /<tr>\s*<td data-label="Name">deploy bot<\/td>[\s\S]*?<\/tr>/.exec(page)?.[0];
      expect(row).toContain('<td data-label="Source">The operator (CLI)</td>');
    } finally {
      await server.stop();
    }
  });

  it.each([
    [["admin", "create-token", "--name", "x"], "--email and --name are required"],
    [["admin", "create-token", "--emial", "a@b.co", "--name", "x"], "Unknown option: --emial"],
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
    expect(server.output().stdout).toMatch(/account page \(sign in, API tokens\): http:\/\/localhost:\d+\/account\n/);
    server.child.kill("SIGTERM");
    expect(await server.exit).toBe(0);
    expect(server.output().stdout).toContain("Received SIGTERM, shutting down.");
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe("reposite serve with built-in HTTPS", () => {
  it("prints both addresses, and the HTTPS one answers", async () => {
    const server = run(["serve"], { REPOSITE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", REPOSITE_HTTPS_PORT: "0" });
    const https = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /listening on http:\/\/\S+ and (https:\/\/\S+) \(HTTPS, certificates from ACME\)/.exec(server.output().stdout);
        if (match) {
          clearInterval(timer);
          resolve(match[1]!);
        }
      }, 50);
      server.exit.then(() => reject(new Error(`server exited early: ${server.output().stderr}`)));
    });
    // No name has a certificate yet, so a handshake is refused: the port is open and speaks TLS.
    const port = Number(new URL(https).port);
    const refused = await new Promise<string>((resolve) => {
      const socket = tlsConnect({ host: "127.0.0.1", port, servername: "nobody.example", rejectUnauthorized: false });
      socket.on("secureConnect", () => resolve("handshake"));
      socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    expect(refused).not.toBe("handshake");
    expect(refused).not.toBe("ECONNREFUSED");
    server.child.kill("SIGTERM");
    expect(await server.exit).toBe(0);
  });
});

describe("reposite help and version", () => {
  const VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as { version: string }).version;

  // Each exits by itself: `serve --help` prints help instead of starting a server.
  it.each([
    [[], "USAGE reposite serve|edge|admin"],
    [["--help"], "USAGE reposite serve|edge|admin"],
    [["-h"], "USAGE reposite serve|edge|admin"],
    [["help"], "USAGE reposite serve|edge|admin"],
    [["serve", "--help"], "USAGE reposite serve"],
    [["serve", "-h"], "USAGE reposite serve"],
    [["admin", "--help"], "USAGE reposite admin create-token|list-accounts"],
    [["admin", "create-token", "--help"], "--email=<address>"],
    [["admin", "create-token", "--email", "a@b.co", "--help"], "--expires=<lifetime>"],
    [["admin", "list-accounts", "--help"], "USAGE reposite admin list-accounts"],
  ])("%j prints help and exits 0", async (args, expected) => {
    const result = run(args, { REPOSITE_DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await result.exit).toBe(0);
    expect(result.output().stdout).toContain(expected);
    expect(result.output().stdout).not.toMatch(/\x1b\[|listening/); // plain text in a pipe; no server
    expect(result.output().stderr).toBe("");
    expect(existsSync(join(dataDir, "records"))).toBe(false); // nothing was opened
  });

  it.each([["--version"], ["-v"]])("%s prints the package version and exits 0", async (flag) => {
    const result = run([flag], { REPOSITE_DATA_DIR: dataDir });
    expect(await result.exit).toBe(0);
    expect(result.output().stdout).toBe(`${VERSION}\n`);
  });

  it.each([
    [["frobnicate"], "Unknown command: frobnicate", "USAGE reposite serve|edge|admin"],
    [["admin", "frobnicate"], "Unknown command: admin frobnicate", "USAGE reposite admin"],
    [["admin"], "No command specified", "USAGE reposite admin"],
    [["serve", "now"], "Unexpected argument: now", "USAGE reposite serve"],
    [["serve", "--port", "3001"], "Unknown option: --port", "USAGE reposite serve"],
  ])("%j exits 2 with the usage on stderr", async (args, message, usage) => {
    const result = run(args, { REPOSITE_DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await result.exit).toBe(2);
    expect(result.output().stderr).toContain(message);
    expect(result.output().stderr).toContain(usage);
    expect(result.output().stdout).toBe("");
  });
});

describe("reposite serve on a busy port", () => {
  let holder: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve())));

  it("refuses to start, names the port and exits non-zero, instead of moving to another port", async () => {
    const port = await freePort();
    holder = createServer((socket) => socket.end("held\n"));
    await new Promise<void>((resolve) => holder!.listen(port, "127.0.0.1", resolve));

    const server = run(["serve"], { REPOSITE_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" });
    const timer = setTimeout(() => server.child.kill("SIGKILL"), 15_000);
    const code = await server.exit;
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(server.output().stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    expect(server.output().stdout).not.toContain("listening");
  });
});
