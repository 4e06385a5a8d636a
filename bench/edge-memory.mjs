// Node's memory per published site in edge mode (REPOSITE_EDGE=nginx): the same server started
// with WARM_SITES (1,000) published sites and with WARM_SITES + SITE_COUNT (2,000), each in its own process; the
// growth of the process's RSS once every site's files are on the edge's disk, divided by SITE_COUNT.
// nginx serves the files, so Node should hold next to nothing per site (target <= 5 KB).
//
// Why not 0 against 1,000: writing the first sites costs a step of 15-20 MB that does not grow with
// the count (measured: the same step with 300, 1,000 and 2,000 sites). It is zlib's gzip and brotli
// buffers, freed but kept by the allocator's arenas of the thread pool's four threads (it shrinks to
// ~7 MB with MALLOC_ARENA_MAX=1), and it is still growing at 100 sites. Dividing it by 1,000 read as
// 16-22 KB "per site"; it is printed on its own line instead (a third server with no site).
// Run alone: node bench/edge-memory.mjs (after npm run build), or as part of npm run bench:edge.

import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { freePort, startChild } from "./lib.mjs";

export const SITE_COUNT = 1_000;
/** Sites both measured servers have, so both carry the one-time cost of writing sites. */
export const WARM_SITES = 1_000;
const TARGET_KB = 5;
const PAGE = (i) => `<!doctype html><html><head><title>Site ${i}</title></head><body><h1>Site ${i}</h1><p>${"A small product page. ".repeat(200)}</p></body></html>`;

/** One server in this process with `count` published sites; answers its RSS once the edge wrote them all. */
async function serveSites(workDir, count) {
  const core = await import("@reposite/core");
  const { startServer } = await import("@reposite/server");
  const port = await freePort();
  const dataDir = join(workDir, "data");
  const reposite = core.createReposite({ repoHosts: [], config: { dataDir, baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` } });
  const store = reposite.container.resolve(core.PublishedSiteStore);
  const file = (path, body) => ({ path, contentType: "text/html; charset=utf-8", body, etag: `"${path}"`, lastModified: "2026-03-01T00:00:00Z" });
  for (let i = 0; i < count; i++) {
    const slug = `bench-site-${i}`;
    await store.put({
      site_id: `site_${String(i).padStart(16, "0")}`,
      owner_id: "acct_bench",
      slug,
      url: `http://${slug}.localhost:${port}`,
      design: "console",
      name: slug,
      pages: ["template"],
      community: false,
      files: { "/": file("/", PAGE(i)), "/404": file("/404", "<!doctype html><title>Not found</title><h1>Not found</h1>") },
      published_at: "2026-03-01T00:00:00Z",
      revision: 1,
    });
  }
  const server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {}, edge: "nginx" }, reposite });
  const sitesDir = join(dataDir, "edge", "sites");
  const written = () => (existsSync(sitesDir) ? readdirSync(sitesDir).filter((slug) => existsSync(join(sitesDir, slug, "current"))).length : 0);
  for (const deadline = Date.now() + 300_000; written() < count; await new Promise((done) => setTimeout(done, 200))) {
    if (Date.now() > deadline) throw new Error(`only ${written()} of ${count} sites written`);
  }
  await new Promise((done) => setTimeout(done, 2_000));
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc");
  for (let i = 0; i < 3; i++) gc();
  process.on("message", async (message) => {
    if (message !== "stop") return;
    await server.close();
    process.exit(0);
  });
  const { rss, heapUsed } = process.memoryUsage();
  process.send({ rss, heapUsed, written: written() });
}

/** RSS and heap of a server that wrote `sites` published sites to the edge's disk, in its own process. */
async function serverMemory(sites) {
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-edge-memory-"));
  try {
    const child = await startChild(new URL("./edge-memory.mjs", import.meta.url).href, ["--serve", workDir, String(sites)], { name: `server with ${sites} sites` });
    await child.stop();
    return child.info;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Prints `RSS per published site (edge): X.X KB` (growth from WARM_SITES to WARM_SITES + count sites), and the one-time step. */
export async function measureSiteMemory(count = SITE_COUNT) {
  const none = await serverMemory(0);
  const warm = await serverMemory(WARM_SITES);
  const full = await serverMemory(WARM_SITES + count);
  const mb = (bytes) => (bytes / 1048576).toFixed(1);
  const perSite = (full.rss - warm.rss) / count / 1024;
  console.log(`    node RSS with 0, ${WARM_SITES} and ${WARM_SITES + count} published sites (edge): ${mb(none.rss)} MB, ${mb(warm.rss)} MB, ${mb(full.rss)} MB`);
  console.log(`    RSS per published site (edge): ${perSite.toFixed(1)} KB over ${count} sites  (target <= ${TARGET_KB} KB: ${perSite <= TARGET_KB ? "met" : "NOT met"})`);
  console.log(`    RSS once the edge has written any site (0 -> ${WARM_SITES} sites, zlib's buffers kept by the allocator): ${mb(warm.rss - none.rss)} MB`);
  // What JavaScript still holds after a full GC; RSS also keeps what the allocator has not returned.
  console.log(`    heap used per published site (edge): ${((full.heapUsed - warm.heapUsed) / count / 1024).toFixed(2)} KB`);
}

if (process.argv[2] === "--serve") await serveSites(process.argv[3], Number(process.argv[4]));
else if (import.meta.url === `file://${process.argv[1]}`) await measureSiteMemory(Number(process.env.BENCH_EDGE_SITES) || SITE_COUNT);
