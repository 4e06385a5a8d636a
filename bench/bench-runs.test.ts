import { spawn } from "node:child_process";
import { join } from "node:path";
import { dockerForTests, postgresForTests } from "@reposite/test-support";
import { describe, expect, it } from "vitest";

// Every benchmark (npm run bench, bench:proxy, bench:deploy) runs in CI for a second or so, so one
// that no longer runs fails the build. What they measure is not checked here: only that each
// runs to its report and exits 0 (a benchmark exits 1 when it could not run).
const engine = await dockerForTests();
const postgres = postgresForTests();
const TINY = { BENCH_DURATION: "1", BENCH_WARMUP: "0", BENCH_ROUNDS: "1", BENCH_SITES: "5" };

function runBench(script: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, script)], {
    env: { ...process.env, ...TINY },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

describe.concurrent("the benchmarks run", () => {
  it("npm run bench: memory per published site, then one published page served four ways", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("site-serving.mjs");
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/heap \+ buffers +[\d.]+ KB per site/);
    expect(output).toMatch(/throughput ratio/);
  });

  it("npm run bench:proxy: one app answer through /app/, nginx and directly (needs wrk)", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("app-proxy.mjs");
    expect(output, "install wrk (apt-get install -y wrk), as .ci/run does").not.toContain("wrk not found");
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/p99 added by Reposite +[\d.-]+ ms/);
  });

  it("npm run bench:edge: one app answer through REPOSITE_EDGE=nginx's /app/, a hand-written nginx and directly (needs wrk and nginx)", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("edge.mjs");
    expect(output, "install wrk and nginx (apt-get install -y wrk nginx)").not.toMatch(/(wrk|nginx) not found/);
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/edge \/app\/ vs nginx proxy_pass: [\d.]+x/);
    expect(output).toMatch(/p99 added by the edge over direct: +[\d.-]+ ms/);
    expect(output).toMatch(/members-only \/app\/ vs public \(auth_request with its cache\): [\d.]+x/);
  });

  it("npm run bench:edge-instructions: instructions per request in the edge's nginx and hand-written nginx (needs valgrind, wrk and nginx)", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("edge-instructions.mjs");
    expect(output, "install valgrind, wrk and nginx (apt-get install -y valgrind wrk nginx), as .ci/run does").not.toMatch(/not found/);
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/edge page vs nginx static \(instructions, lower is better\): [\d.]+x/);
    expect(output).toMatch(/edge \/app\/ with 1,000 more apps routed vs 1 app \(instructions\): [\d.]+x/);
  });

  it("npm run bench:readme: a site's pages from each real README", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("readme-author.mjs");
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/slowest site: .+, \d+ ms for its 4 pages/);
  });

  it.skipIf(!postgres.available)("npm run bench:replicas: an API read/write mix on files, and on PostgreSQL with 1 and 3 replicas (needs wrk and postgresql)", { timeout: 120_000 }, async () => {
    const { code, output } = await runBench("replicas.mjs");
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/ratio pg x3 \/ files: +[\d.]+x/);
    expect(output).toMatch(/GET \/app\/sites with \d+ projects: files p50 [\d.]+ ms, p99 [\d.]+ ms \(server CPU [\d.]+ ms a request\); PostgreSQL p50 [\d.]+ ms, p99 [\d.]+ ms/);
  });

  it.skipIf(!engine.available)("npm run bench:deploy: a deploy by hand and through Reposite on the Engine", { timeout: 180_000 }, async () => {
    const { code, output } = await runBench("deploy.mjs");
    expect(output).not.toContain("bench: failed");
    expect(code, output).toBe(0);
    expect(output).toMatch(/Reposite \/ bare, same-round ratios' median +[\d.]+x/);
  });
});
