import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getWithHost } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withPort } from "../src/listening-port.js";

// The busy-port message recommends PORT=0: the server then takes a free port, and every address
// it prints, links to and routes by must carry that port, never ":0".
const BIN = join(import.meta.dirname, "../bin/reposite.mjs");
let dataDir: string;
beforeAll(async () => {
  if (!existsSync(join(import.meta.dirname, "../dist/index.js"))) throw new Error("packages/server/dist is missing: run `npm run build` (npm test does it first).");
  dataDir = await mkdtemp(join(tmpdir(), "reposite-port-zero-"));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("reposite serve with PORT=0", () => {
  it("prints, links to and serves sites on the port it got", async () => {
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: { PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1", REPOSITE_DATA_DIR: dataDir, REPOSITE_HOSTING: "off" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      await expect.poll(() => stdout, { timeout: 20_000 }).toContain("payments:");
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
      expect(port, stdout).toBeDefined();
      expect(Number(port)).toBeGreaterThan(0);
      expect(stdout).not.toMatch(/:0\b/);
      expect(stdout).toContain(`account page (sign in, API tokens): http://localhost:${port}/account\n`);
      expect(stdout).toContain(`API: http://localhost:${port} (reference: http://localhost:${port}/docs/api)`);
      expect(stdout).toContain(`sites: http://<slug>.localhost:${port}\n`);

      // What it links to carries the port too, and site addresses on that port are routed as sites.
      const root = (await (await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: "application/json" } })).json()) as { account_url: string };
      expect(root.account_url).toBe(`http://localhost:${port}/account`);
      const site = await getWithHost(`http://127.0.0.1:${port}/`, `nothing-here.localhost:${port}`);
      expect(site.status).toBe(404);
      expect(site.body).toMatch(/<html/i);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});

describe("withPort", () => {
  it.each([
    ["http://localhost:0", "http://localhost:4321"],
    ["http://localhost:0/", "http://localhost:4321/"],
    ["localhost:0", "localhost:4321"],
    ["http://[::1]:0", "http://[::1]:4321"],
    ["http://localhost:3000", "http://localhost:3000"],
    ["localhost:30", "localhost:30"],
    ["https://reposite.example", "https://reposite.example"],
    ["sites.example", "sites.example"],
  ])("%s → %s", (address, expected) => {
    expect(withPort(address, 4321)).toBe(expected);
  });
});
