// One app answer through REPOSITE_EDGE=nginx's /app/, against a hand-written nginx proxy_pass to
// the same app and against the app's own port, in one run:
//   direct     the app's own port (the ceiling)
//   nginx      nginx proxy_pass written by hand (prefix removed, X-Forwarded-*, keep-alive upstream)
//   edge       `startServer` with edge "nginx": the generated map $host + upstream per app
// and one published page (gzip) as the edge serves it from its files, against a hand-written nginx
// serving the same file (`edge page vs nginx static`). Then a members-only copy of the site
// (`auth_redirect_to_app`) whose app is the same one, through the edge as a signed-in member: nginx
// asks Reposite's member gate (`auth_request`) and keeps its answer a few seconds, so the figure is
// the gate with its cache, against the same app public (`members-only /app/ vs public`).
// The app is a plain node:http server in its own process; wrk drives each target in turn. A
// benchmark reports: it exits 0 whatever it measured, 1 when it could not run. See bench/README.md.

import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { measureSiteMemory } from "./edge-memory.mjs";
import { LOAD_CPUS, PIN, SERVER_CPU, benchFailed, freePort, get, handWrittenAppProxy, loadSettings, loadWithWrk, median, missingBuild, nginxBinary, postForm, startChild, startNginx, which } from "./lib.mjs";

const SLUG = "lumen";
/** The members-only site: its own slug, the same app behind it. */
const CLUB_SLUG = "lumen-club";
const SETTINGS = loadSettings({ connections: 32 });
/** The issue's targets: at least 0.9x a hand-written proxy_pass, at most 1 ms p99 added over direct. */
const TARGETS = { nginxRatio: 0.9, addedP99Ms: 1.0, pageRatio: 0.9 };
const PAGE_HTML = `<!doctype html><html><head><title>Lumen</title></head><body><h1>Lumen</h1><p>${"Status pages for small teams. ".repeat(60)}</p></body></html>`;
const APP_BODY = JSON.stringify({ ok: true, service: "lumen", items: Array.from({ length: 8 }, (_, i) => ({ id: i, name: `item ${i}` })) });

async function runApp() {
  const body = Buffer.from(APP_BODY);
  const server = createHttpServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  process.on("message", (message) => {
    if (message === "stop") server.close(() => process.exit(0));
  });
  process.send({ port: server.address().port });
}

/** Reposite with REPOSITE_EDGE=nginx, and a project whose app route points at the app. */
async function runEdge(workDir, appPort) {
  const core = await import("@reposite/core");
  const { startServer } = await import("@reposite/server");
  const port = await freePort();
  const repoHost = {
    id: "bench",
    parseLink: (link) => (link.startsWith("https://code.test/lumen-dev/") ? { host: "bench", owner: "lumen-dev", name: link.split("/").pop(), url: link } : null),
    getRepository: async (repo) => ({ owner: repo.owner, name: repo.name, url: repo.url, private: false, description: "Status pages", topics: [], defaultBranch: "main" }),
    getReadme: async () => "# Lumen",
    getSourceArchive: async () => {
      throw new Error("not used by the benchmark");
    },
  };
  const reposite = core.createReposite({ repoHosts: [repoHost], config: { dataDir: join(workDir, "data"), baseUrl: `http://127.0.0.1:${port}`, sitesDomain: `localhost:${port}` } });
  const server = await startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {}, edge: "nginx" }, reposite });
  const { account } = await reposite.accounts.findOrCreate("bench@example.com");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/lumen-dev/lumen" });
  await reposite.container.resolve(core.ProjectStore).modify(project.id, (record) => ({ ...record, slug: SLUG }));
  reposite.container.resolve(core.AppRoutes).set(project.id, { status: "running", target: { host: "127.0.0.1", port: appPort } });
  // A published page, through the API as an owner publishes: the edge writes it under its data dir.
  const { secret } = await reposite.tokens.create(account.id, { name: "bench", lifetime: "30d" });
  const call = async (path, body) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  };
  await call(`/app/sites/${project.id}/versions`, { kind: "template", html: PAGE_HTML, name: "bench" });
  await call(`/app/sites/${project.id}/publish`, {});
  const club = await membersOnlySite(reposite, account, call, appPort);
  const clubHost = `${CLUB_SLUG}.localhost:${port}`;
  const member = await signUpMember(port, clubHost);
  process.on("message", async (message) => {
    if (message !== "stop") return;
    await server.close();
    process.exit(0);
  });
  process.send({ port, host: `${SLUG}.localhost:${port}`, siteDir: join(workDir, "data", "edge", "sites", SLUG, "current"), club: { id: club.id, host: clubHost, cookie: member } });
}

/**
 * A second site whose app is the same app, members-only: published with a sign-in page, then
 * `auth_redirect_to_app` set on its record (the API's rule also wants a deploy; the benchmark points
 * the route at its app itself, as it does for the public site).
 */
async function membersOnlySite(reposite, account, call, appPort) {
  const core = await import("@reposite/core");
  const project = await reposite.projects.create(account.id, { repohost_url: "https://code.test/lumen-dev/lumen-club" });
  const projects = reposite.container.resolve(core.ProjectStore);
  await projects.modify(project.id, (record) => ({ ...record, slug: CLUB_SLUG }));
  await call(`/app/sites/${project.id}/versions`, { kind: "template", html: PAGE_HTML, name: "club" });
  await call(`/app/sites/${project.id}/versions`, { kind: "auth", html: "<!doctype html><title>Sign in</title><h1>Sign in</h1>", name: "sign in" });
  await call(`/app/sites/${project.id}/publish`, {});
  reposite.container.resolve(core.AppRoutes).set(project.id, { status: "running", target: { host: "127.0.0.1", port: appPort } });
  await projects.modify(project.id, (record) => ({ ...record, auth_redirect_to_app: true }));
  return project;
}

/** Signs a member up on the site's own form, as a browser does: the member cookie it keeps. */
async function signUpMember(port, host) {
  const answer = await postForm(`http://127.0.0.1:${port}/auth/sign-up`, { host, origin: `http://${host}` }, { email: "ada@example.com", password: "analytical-engine" });
  const line = [].concat(answer.headers["set-cookie"] ?? []).find((cookie) => cookie.startsWith("reposite_member="));
  if (answer.status !== 303 || !line) throw new Error(`signing a member up answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`);
  return line.split(";")[0];
}

async function main() {
  if (missingBuild(["packages/core/dist/index.js", "packages/server/dist/index.js"], "npm run bench:edge")) return;
  const wrk = which("wrk");
  const nginx = nginxBinary();
  if (!wrk || !nginx) {
    console.log(`bench: ${!wrk ? "wrk" : "nginx"} not found (apt-get install -y wrk nginx); nothing measured`);
    return;
  }
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-edge-"));
  const stops = [];
  try {
    console.log(`bench: one app answer (${Buffer.byteLength(APP_BODY)} bytes of JSON) through /app/, ${SETTINGS.connections} connections, ${SETTINGS.rounds} rounds of ${SETTINGS.duration}s per target after ${SETTINGS.warmup}s warm-up`);
    console.log(PIN ? `bench: app and proxies on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPUS} (taskset)` : "bench: no CPU pinning");
    const app = await startChild(import.meta.url, ["--app", workDir]);
    stops.push(app.stop);
    const edge = await startChild(import.meta.url, ["--edge", workDir, String(app.info.port)]);
    stops.push(edge.stop);
    const hand = await startHandNginx(nginx, workDir, app.info.port, edge.info.siteDir);
    if (!hand) return;
    stops.push(hand.stop);
    const gzip = { "accept-encoding": "gzip" };
    const targets = [
      { key: "direct", name: "app's own port", url: `http://127.0.0.1:${app.info.port}/`, headers: {} },
      { key: "nginx", name: "nginx proxy_pass", url: `http://127.0.0.1:${hand.port}/app/`, headers: { host: edge.info.host } },
      { key: "edge", name: "edge /app/", url: `http://127.0.0.1:${edge.info.port}/app/`, headers: { host: edge.info.host } },
      { key: "static", name: "nginx static page", url: `http://127.0.0.1:${hand.port}/`, headers: { host: edge.info.host, ...gzip } },
      { key: "page", name: "edge page", url: `http://127.0.0.1:${edge.info.port}/`, headers: { host: edge.info.host, ...gzip } },
      { key: "members", name: "edge members-only /app/", url: `http://127.0.0.1:${edge.info.port}/app/`, headers: { host: edge.info.club.host, cookie: edge.info.club.cookie } },
    ];
    // The page is written after its publish; the edge serves it once its host is in the map.
    for (const deadline = Date.now() + 10_000; ; await new Promise((done) => setTimeout(done, 100))) {
      const answer = await get(targets[4].url, targets[4].headers);
      const fromEdge = answer.rawHeaders.some((value, i) => i % 2 === 0 && value.toLowerCase() === "x-reposite-edge" && answer.rawHeaders[i + 1] === "nginx");
      const same = await get(targets[3].url, targets[3].headers);
      if (answer.status === 200 && fromEdge && same.status === 200 && same.body.equals(answer.body)) break;
      if (Date.now() > deadline) {
        console.log(`bench: the edge did not serve the page from its files (status ${answer.status}, nginx static ${same.status})`);
        return;
      }
    }
    // The edge's nginx takes the route after a coalesced reload: wait for the app's answer there.
    if (!(await servedByEdge(targets[2], "the app"))) return;
    // The gated route takes a reload too: wait until nginx itself lets the member through (Node would as well, unmarked).
    if (!(await servedByEdge(targets[5], "the members-only app"))) return;
    if (SETTINGS.warmup > 0) for (const target of targets) await loadWithWrk(wrk, target, SETTINGS.warmup, SETTINGS);
    const runs = Object.fromEntries(targets.map((target) => [target.key, []]));
    for (let round = 0; round < SETTINGS.rounds; round++) {
      const line = [];
      for (const target of targets.map((_, i) => targets[(i + round) % targets.length])) {
        const run = await loadWithWrk(wrk, target, SETTINGS.duration, SETTINGS);
        runs[target.key].push(run);
        line.push(`${target.key} ${run.rps.toFixed(0)} req/s p99 ${run.p99.toFixed(2)} ms${run.errors ? ` [${run.errors} errors]` : ""}`);
      }
      console.log(`  round ${round + 1}: ${line.join(", ")}`);
    }
    const sameRound = (key, against, f) => median(runs[key].map((run, round) => f(run, runs[against][round])));
    const ratio = sameRound("edge", "nginx", (a, b) => a.rps / b.rps);
    const added = sameRound("edge", "direct", (a, b) => a.p99 - b.p99);
    console.log("  results:");
    console.log(`    edge /app/ vs nginx proxy_pass: ${ratio.toFixed(2)}x  (target >= ${TARGETS.nginxRatio.toFixed(2)}x: ${ratio >= TARGETS.nginxRatio ? "met" : "NOT met"})`);
    console.log(`    p99 added by the edge over direct: ${added.toFixed(2)} ms  (target <= ${TARGETS.addedP99Ms.toFixed(2)} ms: ${added <= TARGETS.addedP99Ms ? "met" : "NOT met"})`);
    console.log(`    p99 added by nginx proxy_pass over direct: ${sameRound("nginx", "direct", (a, b) => a.p99 - b.p99).toFixed(2)} ms`);
    const pageRatio = sameRound("page", "static", (a, b) => a.rps / b.rps);
    console.log(`    edge page vs nginx static: ${pageRatio.toFixed(2)}x  (target >= ${TARGETS.pageRatio.toFixed(2)}x: ${pageRatio >= TARGETS.pageRatio ? "met" : "NOT met"})`);
    const membersRatio = sameRound("members", "edge", (a, b) => a.rps / b.rps);
    console.log(`    members-only /app/ vs public (auth_request with its cache): ${membersRatio.toFixed(2)}x  (${median(runs.members.map((run) => run.rps)).toFixed(0)} req/s, p99 ${median(runs.members.map((run) => run.p99)).toFixed(2)} ms)`);
    // Node's memory per published site in edge mode (three more servers: 0, 1,000 and 2,000 sites).
    await measureSiteMemory();
  } catch (error) {
    benchFailed(error);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** True once the edge's nginx answers `target` with the app's body itself; says why not after 10 s. */
async function servedByEdge(target, what) {
  for (const deadline = Date.now() + 10_000; ; await new Promise((done) => setTimeout(done, 100))) {
    const answer = await get(target.url, target.headers);
    if (answer.status === 200 && answer.rawHeaders.some((value, i) => i % 2 === 0 && value.toLowerCase() === "x-reposite-edge" && answer.rawHeaders[i + 1] === "nginx") && answer.body.toString() === APP_BODY) return true;
    if (Date.now() > deadline) {
      console.log(`bench: the edge did not serve ${what} (status ${answer.status}): ${answer.body.toString().slice(0, 200)}`);
      return false;
    }
  }
}

/** The hand-written reference: bench:proxy's nginx, one worker; and the edge's page file served as it is. */
function startHandNginx(binary, workDir, appPort, siteDir) {
  const proxy = handWrittenAppProxy(appPort);
  return startNginx(binary, join(workDir, "nginx"), {
    path: "/app/",
    skipped: "nothing measured",
    http: (port) => `${proxy.upstream}  server {
    listen 127.0.0.1:${port};
${proxy.location}    location = / {
      root ${siteDir};
      gzip_static on;
      try_files /index.html =404;
    }
  }
`,
  });
}

const role = process.argv[2];
if (role === "--app") await runApp();
else if (role === "--edge") await runEdge(process.argv[3], Number(process.argv[4]));
else await main();
