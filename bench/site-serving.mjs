// Requests per second for one published page, served three ways in one run:
//   reference  the Reposite server (packages/server/dist), Host: <slug>.localhost:<port>
//   nginx      the same bytes as a static file (one worker, a generated config on loopback)
//   bare node  node:http answering the same bytes from memory: the runtime's ceiling
// Each server runs in its own process; wrk drives them one after another. A benchmark reports:
// it exits 0 whatever it measured, 1 when it could not run. See bench/README.md.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  CLOCK_TICKS,
  LOAD_CPUS,
  PIN,
  SERVER_CPU,
  TASKSET,
  benchFailed,
  cpuTicks,
  freePort,
  get,
  loadSettings,
  loadWithWrk,
  median,
  missingBuild,
  nginxBinary,
  startChild,
  startNginx,
  which,
} from "./lib.mjs";

const SLUG = "lumen";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
// Pinned (bench/lib.mjs), every server runs on CPU 0 and the load generator on the others.
const SETTINGS = loadSettings({ connections: 50 });
/** Memory per published site: how many small sites are published and loaded (0: skip), and the target. */
const MEMORY = { sites: Number(process.env.BENCH_SITES ?? 200), targetKb: 50 };
const TARGETS = { bare: 0.95, nginx: 0.85 };

// ------------------------------------------------------------------------------------------------
// Servers (child processes)

/** A repo host that knows every `https://code.test/lumen-dev/<name>`: projects are made without a network. */
const lumenRepoHost = {
  id: "bench",
  parseLink: (link) => {
    const match = /^https:\/\/code\.test\/lumen-dev\/([a-z0-9-]+)$/.exec(link);
    return match ? { host: "bench", owner: "lumen-dev", name: match[1], url: link } : null;
  },
  getRepository: async (repo) => ({
    owner: repo.owner,
    name: repo.name,
    url: repo.url,
    private: false,
    description: `Status pages and uptime checks you host yourself (${repo.name})`,
    topics: ["monitoring", "status-page", "uptime"],
    defaultBranch: "main",
  }),
  getReadme: async () => README,
  getSourceArchive: async () => {
    throw new Error("not used by the benchmark");
  },
};

/** The reference server on a temp data dir, with one account, one project and its published site. */
async function runReference(workDir) {
  const core = await import("@reposite/core");
  const { startServer } = await import("@reposite/server");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const reposite = core.createReposite({
    repoHosts: [lumenRepoHost],
    config: { dataDir: join(workDir, "data"), baseUrl, sitesDomain: `localhost:${port}` },
  });
  const server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {} }, reposite });

  const { account } = await reposite.accounts.findOrCreate("bench@example.com");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/lumen-dev/lumen" });
  const facts = await lumenRepoHost.getRepository(lumenRepoHost.parseLink(project.repohost_url));

  // The landing page as Reposite writes it without a language model (the README author), drawn
  // by renderPage in the project's design: the bytes a real published site serves at `/`.
  const pages = ["template", "about", "faq"];
  const request = (kind) => ({
    kind,
    type: "website",
    product: { name: project.name, description: facts.description, repositoryUrl: facts.url, topics: facts.topics, defaultBranch: "main" },
    readme: README,
    instructions: null,
    pages,
    community: false,
  });
  const author = core.createReadmeAuthor();
  const design = core.findDesign(project.design) ?? core.DESIGNS[0];
  const context = {
    name: project.name,
    logoUrl: "",
    colorMode: "",
    type: "website",
    repositoryUrl: facts.url,
    appPath: "/app/",
    pages,
    community: false,
    year: new Date().getUTCFullYear(),
  };
  const signal = new AbortController().signal;
  const html = {};
  for (const kind of pages) html[kind] = core.renderPage(design, await author.write(request(kind), () => {}, signal), context);
  const url = core.siteUrl(reposite.config, SLUG);
  const now = new Date().toISOString();
  const file = (path, contentType, body) => ({
    path,
    contentType,
    body,
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
    lastModified: now,
  });
  const HTML = "text/html; charset=utf-8";
  const files = [
    file("/", HTML, html.template),
    file("/about", HTML, html.about),
    file("/faq", HTML, html.faq),
    file("/404", HTML, core.renderNotFoundPage(design, context)),
    file("/robots.txt", "text/plain; charset=utf-8", `User-agent: *\nAllow: /\n\nSitemap: ${url}/sitemap.xml\n`),
  ];
  const site = {
    site_id: project.id,
    owner_id: account.id,
    slug: SLUG,
    url,
    design: design.id,
    name: project.name,
    pages: ["template", "about", "faq"],
    community: false,
    files: Object.fromEntries(files.map((f) => [f.path, f])),
    published_at: now,
    revision: 1,
  };
  // What publishing leaves: the snapshot at `published-sites:<slug>` and a change event.
  await reposite.container.resolve(core.STORAGE).setItem(`published-sites:${SLUG}`, site);
  reposite.container.resolve(core.EVENTS).publish(core.SITE_CHANGED_CHANNEL ?? "sites:changed", { slug: SLUG });
  writeFileSync(join(workDir, "page.html"), html.template);

  // For comparison only: the same app through h3 alone (toNodeHandler), without the node-level fast
  // path startServer puts in front of it; same Reposite, so the same cache.
  const { createApp } = await import("@reposite/server");
  const { toNodeHandler } = await import("h3");
  const h3Only = createHttpServer(toNodeHandler(createApp(reposite)));
  h3Only.keepAliveTimeout = 60_000;
  await new Promise((done) => h3Only.listen(0, "127.0.0.1", done));

  process.on("message", async (message) => {
    if (message !== "stop") return;
    h3Only.closeAllConnections();
    h3Only.close();
    await server.close();
    process.exit(0);
  });
  process.send({
    port,
    h3Port: h3Only.address().port,
    host: `${SLUG}.localhost:${port}`,
    design: design.id,
    bytes: Buffer.byteLength(html.template),
  });
}

/**
 * Memory per published site, in a process started with --expose-gc: publishes `count` small sites
 * through PublishingService (landing, About and FAQ pages by the README author, the 404 page,
 * sitemap, robots and the preview image), then asks each one's files over HTTP as a browser does
 * (Accept-Encoding: br) and measures what the server holds after a forced GC: heap, buffers
 * (compressed bodies live outside the heap) and RSS, before and after, divided by the count.
 */
async function runMemory(workDir, count) {
  const core = await import("@reposite/core");
  const { startServer } = await import("@reposite/server");
  const port = await freePort();
  const reposite = core.createReposite({
    repoHosts: [lumenRepoHost],
    config: { dataDir: join(workDir, "memory-data"), baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` },
  });
  const server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {} }, reposite });
  const { account } = await reposite.accounts.findOrCreate("bench@example.com");
  const author = core.createReadmeAuthor();
  const signal = new AbortController().signal;
  const kinds = ["template", "about", "faq"];
  const slugs = [];
  for (let i = 0; i < count; i++) {
    const project = await reposite.projects.create(account.id, { repohost_url: `https://code.test/lumen-dev/lumen-${i}` });
    const design = core.findDesign(project.design) ?? core.DESIGNS[0];
    const product = { name: project.name, description: project.description, repositoryUrl: project.repohost_url, topics: [], defaultBranch: "main" };
    const context = { name: project.name, logoUrl: "", colorMode: "", type: "website", repositoryUrl: project.repohost_url, appPath: "/app/", pages: kinds, community: false, year: 2026 };
    for (const kind of kinds) {
      const content = await author.write({ kind, type: "website", product, readme: README, instructions: null, pages: kinds, community: false }, () => {}, signal);
      const html = core.renderPage(design, content, context);
      await reposite.pageVersions.add({ ownerId: account.id, siteId: project.id, kind, name: "bench", html, source: "custom", design: design.id });
    }
    const { url } = await reposite.publishing.publish(account.id, project.id, {});
    slugs.push(new URL(url).hostname.split(".")[0]);
  }
  await reposite.publishing.idle();

  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      globalThis.gc();
      await new Promise((done) => setImmediate(done));
    }
    const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
    return { heapUsed, arrayBuffers, rss };
  };
  const visit = async (encoding, sites = slugs) => {
    for (const slug of sites) {
      for (const path of ["/", "/about", "/faq", "/sitemap.xml", "/robots.txt", "/missing"]) {
        const headers = { host: `${slug}.localhost:${port}`, "user-agent": FIREFOX, ...(encoding ? { "accept-encoding": encoding } : {}) };
        const answer = await get(`http://127.0.0.1:${port}${path}`, headers);
        if (answer.status !== 200 && path !== "/missing") throw new Error(`${slug}${path} answered ${answer.status}`);
      }
    }
  };
  // In two halves: what the process takes once (code, pools, allocator arenas) shows in the first.
  const half = Math.floor(count / 2);
  const browser = "gzip, deflate, br, zstd";
  const empty = await settle();
  await visit(browser, slugs.slice(0, half));
  const halfway = await settle();
  await visit(browser, slugs.slice(half));
  const browsers = await settle();
  const cached = slugs.filter((slug) => reposite.siteCache.peek(slug)).length;
  const accounted = reposite.siteCache.stats().bytes;
  await visit("gzip, deflate");
  const gzip = await settle();
  await visit("");
  const plain = await settle();
  await server.close();
  process.send({ count, half, cached, accounted, empty, halfway, browsers, gzip, plain });
}

/**
 * node:http answering the page from memory with the two headers it needs: the runtime's ceiling.
 * With `headersFile`, it sends the reference server's response headers instead (what those cost).
 */
async function runBare(workDir, headersFile) {
  const body = readFileSync(join(workDir, "page.html"));
  const headers = headersFile
    ? JSON.parse(readFileSync(join(workDir, headersFile), "utf8"))
    : { "content-type": "text/html; charset=utf-8", "content-length": String(body.length) };
  const server = createHttpServer((req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  process.on("message", (message) => {
    if (message === "stop") server.close(() => process.exit(0));
  });
  process.send({ port: server.address().port });
}

// ------------------------------------------------------------------------------------------------
// The run

async function main() {
  if (missingBuild(["packages/core/dist/index.js", "packages/server/dist/index.js"], "npm run bench")) return;
  const wrk = which("wrk");
  const nginx = nginxBinary();
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-"));
  const stops = [];
  try {
    if (MEMORY.sites > 0) await measureMemory(workDir);
    if (process.env.BENCH_THROUGHPUT === "0") return;
    console.log(
      `bench: one published page, ${SETTINGS.connections} connections, ${SETTINGS.rounds} rounds of ${SETTINGS.duration}s per server after ${SETTINGS.warmup}s warm-up`
    );
    console.log(`bench: load from ${wrk ? `wrk -t${SETTINGS.threads}` : "a node keep-alive loop (wrk not found: apt-get install -y wrk)"}`);
    console.log(
      PIN
        ? `bench: servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPUS} (taskset)`
        : `bench: no CPU pinning (${TASKSET ? "BENCH_PIN=0 or one CPU" : "taskset not found"})`
    );

    const reference = await startChild(import.meta.url, ["--reference", workDir], { name: "--reference server" });
    stops.push(reference.stop);
    const page = readFileSync(join(workDir, "page.html"));
    console.log(`bench: page "/" rendered by renderPage in design "${reference.info.design}", ${page.length} bytes`);

    const bare = await startChild(import.meta.url, ["--bare", workDir], { name: "--bare server" });
    stops.push(bare.stop);
    // The reference server's own response headers (less the ones node:http adds), for a bare server that sends them too.
    const sample = await get(`http://127.0.0.1:${reference.info.port}/`, { host: reference.info.host, "user-agent": FIREFOX });
    const added = new Set(["date", "connection", "keep-alive"]);
    const sameHeaders = sample.rawHeaders.filter((_, i, all) => !added.has(all[i - (i % 2)].toLowerCase()));
    writeFileSync(join(workDir, "headers.json"), JSON.stringify(sameHeaders));
    const bareHeaders = await startChild(import.meta.url, ["--bare", workDir, "headers.json"], { name: "--bare server" });
    stops.push(bareHeaders.stop);

    let nginxTarget = null;
    if (nginx) {
      const started = await startStaticNginx(nginx, workDir, page);
      if (started) {
        stops.push(started.stop);
        nginxTarget = { name: "nginx (static file)", url: `http://127.0.0.1:${started.port}/`, headers: {}, pid: started.pid };
      }
    } else {
      console.log("bench: nginx not found (apt-get install -y nginx): the nginx ratio is skipped");
    }

    const targets = [
      {
        key: "reference",
        name: "reference server",
        url: `http://127.0.0.1:${reference.info.port}/`,
        headers: { host: reference.info.host },
        pid: reference.pid,
      },
      ...(nginxTarget ? [{ key: "nginx", ...nginxTarget }] : []),
      { key: "bare", name: "bare node:http", url: `http://127.0.0.1:${bare.info.port}/`, headers: {}, pid: bare.pid },
      {
        key: "bareHeaders",
        name: "bare, reference headers",
        url: `http://127.0.0.1:${bareHeaders.info.port}/`,
        headers: {},
        pid: bareHeaders.pid,
      },
      ...(process.env.BENCH_H3 === "0"
        ? []
        : [
            {
              key: "h3",
              name: "reference, h3 path only",
              url: `http://127.0.0.1:${reference.info.h3Port}/`,
              headers: { host: reference.info.host },
              pid: reference.pid,
            },
          ]),
    ];
    // Every server must answer the same bytes before anything is measured.
    for (const target of targets) {
      const answer = await get(target.url, { ...target.headers, "user-agent": FIREFOX });
      if (answer.status !== 200 || !answer.body.equals(page)) {
        console.log(
          `bench: ${target.name} did not answer the page (status ${answer.status}, ${answer.body.length} bytes).` +
            (target.key === "reference" ? " Is the site runtime mounted in the server (app.ts, start-server.ts)?" : "")
        );
        return;
      }
    }

    // BENCH_WARMUP=0 skips it (wrk takes no zero duration).
    if (SETTINGS.warmup > 0) for (const target of targets) await load(wrk, target, SETTINGS.warmup);
    const runs = Object.fromEntries(targets.map((target) => [target.key, []]));
    for (let round = 0; round < SETTINGS.rounds; round++) {
      // Rotated order: no server is always measured first or last.
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      const line = [];
      for (const target of order) {
        const run = await load(wrk, target, SETTINGS.duration);
        runs[target.key].push(run);
        const cpu = run.cpuUs === null ? "" : ` (${run.cpuUs.toFixed(1)} µs CPU/req)`;
        line.push(`${target.key} ${run.rps.toFixed(0)}${cpu}${run.errors ? ` [${run.errors} errors]` : ""}`);
      }
      console.log(`  round ${round + 1}: ${line.join(", ")} req/s`);
    }

    console.log("  median:");
    const rps = {};
    for (const target of targets) {
      rps[target.key] = median(runs[target.key].map((run) => run.rps));
      const cpus = runs[target.key].map((run) => run.cpuUs).filter((value) => value !== null);
      const cpu = cpus.length ? `, ${median(cpus).toFixed(1)} µs server CPU per request` : "";
      console.log(`    ${target.name.padEnd(22)} ${rps[target.key].toFixed(0).padStart(8)} req/s${cpu}`);
    }
    // Ratios of runs made in the same round (seconds apart) first, then their median: steadier than a ratio of medians on a busy machine.
    const ratio = (key) => (runs[key] ? median(runs.reference.map((run, round) => run.rps / runs[key][round].rps)) : null);
    const verdict = (value, target) =>
      value === null ? "n/a" : `${value.toFixed(3)}x  (target >= ${target.toFixed(2)}x: ${value >= target ? "met" : "NOT met"})`;
    console.log("  throughput ratio (req/s, median of same-round ratios):");
    console.log(`    reference / bare node  ${verdict(ratio("bare"), TARGETS.bare)}`);
    console.log(`    reference / nginx      ${verdict(ratio("nginx"), TARGETS.nginx)}`);
    const informational = (label, key, against) =>
      runs[key] &&
      runs[against] &&
      console.log(`    (${label} ${median(runs[key].map((run, round) => run.rps / runs[against][round].rps)).toFixed(3)}x)`);
    informational("reference / bare node sending the same headers", "reference", "bareHeaders");
    informational("without the node-level fast path: h3 path / bare node", "h3", "bare");
    // CPU per request is what throughput is on a core of its own; it barely moves when other work shares the machine.
    const cpuOf = (key) => {
      const values = (runs[key] ?? []).map((run) => run.cpuUs).filter((value) => value !== null);
      return values.length ? median(values) : null;
    };
    const cpuRatio = (key) => (cpuOf(key) !== null && cpuOf("reference") !== null ? cpuOf(key) / cpuOf("reference") : null);
    if (cpuOf("reference") !== null) {
      console.log("  efficiency ratio (server CPU per request, other / reference):");
      console.log(`    reference vs bare node ${verdict(cpuRatio("bare"), TARGETS.bare)}`);
      console.log(`    reference vs nginx     ${verdict(cpuRatio("nginx"), TARGETS.nginx)}`);
      const cpuInfo = (label, fast, slow) =>
        cpuOf(fast) !== null && cpuOf(slow) !== null && console.log(`    (${label} ${(cpuOf(fast) / cpuOf(slow)).toFixed(3)}x)`);
      cpuInfo("reference vs bare node sending the same headers", "bareHeaders", "reference");
      cpuInfo("bare node sending the reference's headers vs bare node", "bare", "bareHeaders");
      cpuInfo("the runtime's own ceiling: bare node vs nginx", "nginx", "bare");
      cpuInfo("without the node-level fast path: h3 path vs bare node", "bare", "h3");
    }
  } catch (error) {
    benchFailed(error);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Runs the memory measurement in its own process (with --expose-gc) and prints it per site. */
async function measureMemory(workDir) {
  console.log(`bench: memory per published site: ${MEMORY.sites} small sites (/, /about, /faq, 404, sitemap, robots, og.png) published, then visited`);
  const result = await new Promise((done, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--memory", workDir, String(MEMORY.sites)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let answer = null;
    child.once("message", (message) => (answer = message));
    child.once("error", reject);
    child.once("exit", (code) => (answer ? done(answer) : reject(new Error(`the memory measurement exited with ${code}`))));
  });
  const kb = (bytes) => `${(bytes / result.count / 1024).toFixed(1)} KB`;
  const growth = (from, to) => ({
    heap: to.heapUsed - from.heapUsed,
    buffers: to.arrayBuffers - from.arrayBuffers,
    rss: to.rss - from.rss,
  });
  const browsers = growth(result.empty, result.browsers);
  const held = browsers.heap + browsers.buffers;
  const met = held / result.count / 1024 <= MEMORY.targetKb;
  const second = growth(result.halfway, result.browsers);
  const perSecond = (bytes) => `${(bytes / (result.count - result.half) / 1024).toFixed(1)} KB`;
  console.log(`  ${result.cached} of ${result.count} sites in the cache after browsers (Accept-Encoding: br) asked each site's files, after a forced GC:`);
  console.log(`    heap + buffers ${kb(held).padStart(10)} per site  (target <= ${MEMORY.targetKb} KB: ${met ? "met" : "NOT met"})`);
  console.log(`    heap           ${kb(browsers.heap).padStart(10)} per site`);
  console.log(`    buffers        ${kb(browsers.buffers).padStart(10)} per site (bodies held outside the JS heap)`);
  console.log(`    RSS            ${kb(browsers.rss).padStart(10)} per site over all ${result.count}; ${perSecond(second.rss)} per site over the second half (heap + buffers ${perSecond(second.heap + second.buffers)})`);
  console.log(`    counted by the cache against its budget: ${kb(result.accounted)} per site`);
  const gzip = growth(result.browsers, result.gzip);
  console.log(`  then gzip-only clients asked the same: +${kb(gzip.heap + gzip.buffers)} heap + buffers per site (gzip made on first use, kept within the budget)`);
  const plain = growth(result.gzip, result.plain);
  console.log(`  then clients without compression (curl) asked the same: +${kb(plain.heap + plain.buffers)} per site (plain bodies made on first use, kept within the budget)`);
}

/** nginx, one worker, serving `page` as a static file from a temp root on a loopback port. */
function startStaticNginx(binary, workDir, page) {
  const prefix = join(workDir, "nginx");
  const root = join(prefix, "root");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "index.html"), page);
  // Workers run as `nobody` when nginx starts as root: the root and the page must be readable.
  chmodSync(root, 0o755);
  chmodSync(join(root, "index.html"), 0o644);
  return startNginx(binary, prefix, {
    path: "/",
    skipped: "the nginx ratio is skipped",
    http: (port) => `  sendfile on;
  tcp_nopush on;
  types { text/html html; }
  charset utf-8;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
  }
`,
  });
}

// ------------------------------------------------------------------------------------------------
// Load

/** Load for `seconds`: req/s from the client, and the server's CPU time per request from /proc (steadier on a busy machine). */
async function load(wrk, target, seconds) {
  const before = cpuTicks(target.pid);
  const run = await (wrk ? loadWithWrkAsBrowser(wrk, target, seconds) : loadWithNode(target, seconds));
  const after = cpuTicks(target.pid);
  const cpuUs = before !== null && after !== null && run.requests > 0 ? ((after - before) * 1e6) / CLOCK_TICKS / run.requests : null;
  return { ...run, cpuUs };
}

/** wrk, with a browser's User-Agent (the reference server counts a page view for each request). */
function loadWithWrkAsBrowser(wrk, target, seconds) {
  return loadWithWrk(wrk, { ...target, headers: { "user-agent": FIREFOX, ...target.headers } }, seconds, SETTINGS);
}

/** Without wrk: keep-alive connections in this process, each sending the next request when the last ends. */
async function loadWithNode(target, seconds) {
  const { Agent } = await import("node:http");
  const agent = new Agent({ keepAlive: true, maxSockets: SETTINGS.connections });
  const headers = { "user-agent": FIREFOX, ...target.headers };
  const end = Date.now() + seconds * 1000;
  let count = 0;
  let errors = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const answer = await get(target.url, headers, { agent }).catch(() => null);
      if (answer?.status === 200) count++;
      else errors++;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: SETTINGS.connections }, worker));
  agent.destroy();
  return { rps: count / ((Date.now() - started) / 1000), errors, requests: count };
}

// It asks questions of its own: the README author writes an FAQ page only from a README's questions.
const README = `# Lumen

Lumen watches your websites and APIs, opens incidents when they fail and publishes a status page your users can trust.

## Features

- **Checks every 30 seconds**: HTTP, TCP, DNS and heartbeat checks from several regions.
- **Incidents write themselves**: when a check fails twice, Lumen opens an incident with the failing responses attached.
- **A status page in your colours**: publish a fast, accessible status page on your own domain.
- **Alerts where you already are**: email, webhooks, Slack and Matrix, with quiet hours and escalation rules.
- **Config as code**: every check lives in a small YAML file next to your code.

## Install

\`\`\`sh
npm install --global @lumen/cli
lumen init my-status-page && cd my-status-page
lumen up --port 8080
\`\`\`

## Configuration

Checks are plain YAML. Each one names a target, how often to look and what counts as healthy.

\`\`\`yaml
checks:
  - name: API health
    url: https://api.example.com/health
    every: 30s
    expect: { status: 200 }
\`\`\`

## FAQ

### Does Lumen need a database?

No. Checks, incidents and the status page's history are kept in plain files next to your config.

### Can I run checks from my own network?

Yes: start \`lumen agent\` on any machine and its checks report to your Lumen like the others.

## License

MIT
`;

const role = process.argv[2];
if (role === "--reference") await runReference(process.argv[3]);
else if (role === "--memory") await runMemory(process.argv[3], Number(process.argv[4]));
else if (role === "--bare") await runBare(process.argv[3], process.argv[4]);
else await main();
