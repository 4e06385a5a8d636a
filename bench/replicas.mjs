// Replicas on PostgreSQL against one process on files (issue 25):
//   files      one `reposite serve` with records in its data directory (the default)
//   pg x1      one `reposite serve` on PostgreSQL (REPOSITE_DATABASE_URL)
//   pg x3      three `reposite serve` on the same database, wrk driving each with a third of the load
// The load is an API mix of one account: 8 in 10 `GET /app/sites`, 1 `GET /app/sites/{id}`, 1
// `PATCH /app/sites/{id}` (a write). Before it, BENCH_SITES projects (10,000 by default, 10 per
// account) are in storage; then the p50 and p99 of `GET /app/sites` on one connection, after the
// mix (goal: p99 <= 5 ms), and the server's CPU time per request meanwhile (what a busy machine
// does not change, unlike the latency).
// A benchmark reports: it exits 0 whatever it measured, 1 when it could not run. See bench/README.md.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLOCK_TICKS, ROOT, benchFailed, cpuTicks, loadSettings, loadWithWrk, median, missingBuild, which } from "./lib.mjs";

const SETTINGS = loadSettings({ connections: 24 });
const PROJECTS = Number(process.env.BENCH_SITES ?? 10_000);
const PER_ACCOUNT = 10;
const GOAL_P99_MS = 5;
const BIN = join(ROOT, "packages/server/bin/reposite.mjs");

/** A code host that knows every `https://code.test/bench/<name>`: projects are made without a network. */
const benchRepoHost = {
  id: "bench",
  parseLink: (link) => {
    const match = /^https:\/\/code\.test\/bench\/([a-z0-9-]+)$/.exec(link);
    return match ? { host: "bench", owner: "bench", name: match[1], url: link } : null;
  },
  getRepository: async (repo) => ({ owner: repo.owner, name: repo.name, url: repo.url, private: false, description: `Project ${repo.name}`, topics: [], defaultBranch: "main" }),
  getReadme: async () => "# bench\n",
  getSourceArchive: async () => {
    throw new Error("not used by the benchmark");
  },
};

/**
 * PROJECTS projects, PER_ACCOUNT per account, made through the services (records, indexes and
 * slug claims as the API makes them); answers the measured account's token and project ids.
 */
async function seed(reposite) {
  const accounts = Math.ceil(PROJECTS / PER_ACCOUNT);
  let measured;
  let next = 0;
  const worker = async () => {
    for (let a = next++; a < accounts; a = next++) {
      const { account } = await reposite.accounts.findOrCreate(`bench-${a}@example.com`);
      const ids = [];
      for (let p = 0; p < Math.min(PER_ACCOUNT, PROJECTS - a * PER_ACCOUNT); p++) {
        ids.push((await reposite.projects.create(account.id, { repohost_url: `https://code.test/bench/p${a}-${p}` })).id);
      }
      if (a === 0) measured = { token: (await reposite.tokens.create(account.id, { name: "bench", lifetime: "30d" })).secret, ids };
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return measured;
}

/** wrk's Lua: the read/write mix of one account. */
function mixScript(dir, { token, ids }) {
  const file = join(dir, "mix.lua");
  writeFileSync(
    file,
    `local ids = { ${ids.map((id) => `"${id}"`).join(", ")} }
local auth = { ["Authorization"] = "Bearer ${token}" }
local write = { ["Authorization"] = "Bearer ${token}", ["Content-Type"] = "application/json" }
local n = 0
request = function()
  n = n + 1
  local id = ids[(n % #ids) + 1]
  local k = n % 10
  if k < 8 then return wrk.format("GET", "/app/sites", auth) end
  if k == 8 then return wrk.format("GET", "/app/sites/" .. id, auth) end
  return wrk.format("PATCH", "/app/sites/" .. id, write, '{"description":"bench ' .. n .. '"}')
end
`,
  );
  return file;
}

/** Requests per second of the mix over `urls` (one wrk each, the connections shared out), as the median of the rounds. */
async function throughput(wrk, urls, script) {
  const connections = Math.max(1, Math.floor(SETTINGS.connections / urls.length));
  const threads = Math.max(1, Math.floor(SETTINGS.threads / urls.length));
  const once = (seconds) => Promise.all(urls.map((url) => loadWithWrk(wrk, { url: `${url}/app/sites`, headers: {} }, seconds, { threads, connections, script })));
  if (SETTINGS.warmup > 0) await once(SETTINGS.warmup);
  const rounds = [];
  let errors = 0;
  for (let round = 0; round < SETTINGS.rounds; round++) {
    const results = await once(SETTINGS.duration);
    rounds.push(results.reduce((sum, result) => sum + result.rps, 0));
    errors += results.reduce((sum, result) => sum + result.errors, 0);
  }
  return { rps: median(rounds), errors };
}

/** p50 and p99 of `GET /app/sites` of the measured account, one connection (latency, not saturation), and the server's CPU ms per request (`pid`, from /proc). */
async function listLatency(wrk, url, token, pid) {
  const before = cpuTicks(pid);
  const result = await loadWithWrk(wrk, { url: `${url}/app/sites`, headers: { Authorization: `Bearer ${token}` } }, Math.max(1, SETTINGS.duration), { threads: 1, connections: 1 });
  const after = cpuTicks(pid);
  const cpuMs = before === null || after === null || !result.requests ? NaN : ((after - before) * 1000) / CLOCK_TICKS / result.requests;
  return { p50: result.p50, p99: result.p99, cpuMs };
}

async function main() {
  if (missingBuild(["packages/server/dist/index.js", "packages/core/dist/index.js", "packages/provider-postgres/dist/index.js"], "npm run bench:replicas")) return;
  const wrk = which("wrk");
  if (!wrk) {
    console.log("bench: wrk not found (apt-get install -y wrk)");
    process.exitCode = 1;
    return;
  }
  const work = mkdtempSync(join(tmpdir(), "reposite-bench-replicas-"));
  const support = await loadTestSupport(work);
  const core = await import("@reposite/core");
  const { createPostgresPorts } = await import("@reposite/provider-postgres");
  const secretKey = randomBytes(32).toString("base64");
  const cleanups = [];
  try {
    console.log(`bench:replicas — ${PROJECTS} projects, mix 80% GET /app/sites, 10% GET /app/sites/{id}, 10% PATCH; ${SETTINGS.rounds} x ${SETTINGS.duration}s, ${SETTINGS.connections} connections`);
    const base = { REPOSITE_SECRET_KEY: secretKey, REPOSITE_HOSTING: "off" };

    // One process on files.
    const filesDir = join(work, "files");
    const onFiles = core.createReposite({ repoHosts: [benchRepoHost], secretKey, config: { dataDir: filesDir } });
    let started = performance.now();
    const filesAccount = await seed(onFiles);
    await onFiles.close();
    console.log(`  seeded files in ${Math.round(performance.now() - started)} ms`);
    const files = await startServe(support, { ...base, REPOSITE_DATA_DIR: filesDir });
    cleanups.push(files.stop);
    const filesResult = await throughput(wrk, [files.url], mixScript(work, filesAccount));
    const filesList = await listLatency(wrk, files.url, filesAccount.token, files.pid);
    await files.stop();

    // PostgreSQL: one replica, then three.
    const database = await support.startPostgres();
    cleanups.push(database.stop);
    const onPg = core.createReposite({ repoHosts: [benchRepoHost], secretKey, config: { dataDir: join(work, "seed") }, ...createPostgresPorts({ url: database.url }) });
    started = performance.now();
    const pgAccount = await seed(onPg);
    await onPg.close();
    console.log(`  seeded PostgreSQL in ${Math.round(performance.now() - started)} ms`);
    const script = mixScript(work, pgAccount);
    const results = {};
    let pgList = { p50: NaN, p99: NaN, cpuMs: NaN };
    for (const count of [1, 3]) {
      const set = await support.startReplicas({ bin: BIN, count, env: { ...base, REPOSITE_DATABASE_URL: database.url } });
      try {
        results[count] = await throughput(wrk, set.replicas.map((replica) => replica.url), script);
        if (count === 1) pgList = await listLatency(wrk, set.replicas[0].url, pgAccount.token, set.replicas[0].child.pid);
      } finally {
        await set.close();
      }
    }

    const row = (name, result) => console.log(`  ${name.padEnd(26)} ${result.rps.toFixed(0).padStart(7)} req/s${result.errors ? ` (${result.errors} errors)` : ""}`);
    row("files, 1 process", filesResult);
    row("PostgreSQL, 1 replica", results[1]);
    row("PostgreSQL, 3 replicas", results[3]);
    console.log(`  ratio pg x1 / files:        ${(results[1].rps / filesResult.rps).toFixed(2)}x`);
    console.log(`  ratio pg x3 / files:        ${(results[3].rps / filesResult.rps).toFixed(2)}x`);
    console.log(`  ratio pg x3 / pg x1:        ${(results[3].rps / results[1].rps).toFixed(2)}x`);
    const latency = ({ p50, p99, cpuMs }) => `p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (server CPU ${cpuMs.toFixed(3)} ms a request)`;
    console.log(`  GET /app/sites with ${PROJECTS} projects: files ${latency(filesList)}; PostgreSQL ${latency(pgList)} (goal: p99 <= ${GOAL_P99_MS} ms)`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

/** One `reposite serve` (the replicas helper's process handling, with a data directory given). */
async function startServe(support, env) {
  const set = await support.startReplicas({ bin: BIN, count: 1, env });
  return { url: set.replicas[0].url, pid: set.replicas[0].child.pid, stop: () => set.close() };
}

/** The test-support helpers are TypeScript; esbuild bundles the ones used into one module for plain node. */
async function loadTestSupport(workDir) {
  const { build } = await import("esbuild");
  const outfile = join(workDir, "test-support.mjs");
  await build({
    stdin: {
      contents: 'export { startPostgres } from "./src/postgres.ts";\nexport { startReplicas } from "./src/replicas.ts";\n',
      resolveDir: join(ROOT, "packages/test-support"),
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "silent",
  });
  return import(pathToFileURL(outfile).href);
}

main().catch(benchFailed);
