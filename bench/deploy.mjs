// How long a deploy of a small app takes, measured three ways in one run, round after round:
//   bare      `docker build` (BuildKit, as Reposite builds) + `docker run -d -p 127.0.0.1:<port>:3000` + polling
//             until the app's first 200: what an operator typing the commands gets (the target's baseline);
//             like Reposite's, a redeploy: the previous container serves a visitor meanwhile, then goes
//   bare-net  the same with `docker run --network <its own bridge network>`: what the per-app network
//             Reposite gives each app costs by itself (shown, not the target's baseline)
//   Reposite  `POST /app/sites/{id}/deployment/deploy` on a real `reposite serve` process, until the
//             first 200 from the new container at `/app/` through the proxy, and until the run ends
// The app is the same dependency-free Node server with the same Dockerfile on the locally built
// `reposite-test/node:local` image; each round changes one file on every side, so each really builds.
// The result is the median of the same-round ratios Reposite / bare (sides in a rotating order, so
// a busy moment of the shared machine weighs on each side alike), with their spread.
// `docker events` (filtered by this run's label) splits each deploy into build, create, start and
// answer. Everything the run makes carries one label and is removed at the end. A benchmark
// reports: it exits 0 whatever it measured, 1 when it could not run. See bench/README.md.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, benchFailed, freePort, get, median, missingBuild } from "./lib.mjs";

const BIN = join(ROOT, "packages/server/bin/reposite.mjs");
/**
 * An account may start 20 builds a day (BUILDS_PER_DAY); its app's first deploy takes one of them.
 * More rounds take more accounts, each with its app, deployed in turn.
 */
const ROUNDS_PER_ACCOUNT = 19;
const MAX_ROUNDS = 5 * ROUNDS_PER_ACCOUNT;
const SETTINGS = {
  /** Measured rounds; each deploys once each way, the order rotating. */
  rounds: Math.min(MAX_ROUNDS, Math.max(1, Number(process.env.BENCH_ROUNDS ?? 9))),
  /** Pause between two polls of the app, the same on both sides. */
  pollMs: Number(process.env.BENCH_POLL_MS ?? 10),
  /** Longest one deploy may take before the run gives up. */
  timeoutMs: Number(process.env.BENCH_DEPLOY_TIMEOUT ?? 120) * 1000,
  /** Reposite's app containers start in network holders (`off`: each joins its network itself, as before). */
  holders: process.env.BENCH_NETWORK_HOLDERS !== "off",
};
/** Reposite's deploy, POST to first 200 through /app/, at most this times the bare commands'. */
const TARGET_RATIO = 1.1;
const LABEL_KEY = "reposite-bench.run";

/** The app: a Node server with no dependencies that answers the round's mark, so a poll knows which build answered. */
const APP_FILES = {
  Dockerfile: ["FROM reposite-test/node:local", "WORKDIR /app", "COPY . .", "USER node", 'CMD ["node", "server.js"]', ""].join("\n"),
  "package.json": `${JSON.stringify({ name: "hello-bench", private: true, scripts: { start: "node server.js" } }, null, 2)}\n`,
  "server.js": [
    'const { readFileSync } = require("node:fs");',
    'const { createServer } = require("node:http");',
    'const mark = readFileSync(`${__dirname}/round.txt`, "utf8");',
    'createServer((req, res) => res.writeHead(200, { "content-type": "text/plain" }).end(mark)).listen(Number(process.env.PORT) || 3000);',
    "",
  ].join("\n"),
};
const filesFor = (mark) => ({ ...APP_FILES, "round.txt": mark });
/** Each poll on a new connection (as a first visitor's), given up after 2 s: a stuck one must not stall the timing. */
const POLL = { timeoutMs: 2_000 };

// ------------------------------------------------------------------------------------------------
// The run

async function main() {
  if (missingBuild(["packages/core/dist/index.js", "packages/server/dist/index.js", "packages/provider-docker/dist/index.js"], "npm run bench:deploy")) return;
  const workDir = mkdtempSync(join(tmpdir(), "reposite-bench-deploy-"));
  const run = randomBytes(4).toString("hex");
  const label = `${LABEL_KEY}=${run}`;
  const cleanups = [];
  let cleaned = null;
  const cleanUp = () =>
    (cleaned ??= (async () => {
      for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch((error) => console.log(`bench: cleanup: ${error?.message ?? error}`));
      rmSync(workDir, { recursive: true, force: true });
    })());
  // Ctrl-C still removes what the run made.
  process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));
  let support;
  try {
    support = await loadTestSupport(workDir);
    try {
      await support.docker(["info", "--format", "{{.ServerVersion}}"], { timeoutMs: 15_000 });
    } catch (error) {
      console.log(`bench: no Docker Engine answers (${String(error.message).split("\n")[0]}); nothing measured`);
      // Where Docker is required (CI), a benchmark that cannot reach it did not run.
      if (process.env.REPOSITE_REQUIRE_DOCKER === "1") process.exitCode = 1;
      return;
    }
    console.log("bench: making the local base images (once per machine) …");
    await support.buildLocalBaseImages();
    // The holders' image, as an operator loads registry.k8s.io/pause (no registry is reachable here).
    const holderImage = SETTINGS.holders ? await support.buildLocalPauseImage() : "off";
    console.log(`bench: deploy of a dependency-free Node server (Dockerfile on ${support.LOCAL_BASE_IMAGES.node}), ${SETTINGS.rounds} rounds after a first deploy, polls every ${SETTINGS.pollMs} ms, network holders ${holderImage === "off" ? "off" : `on (${holderImage})`}, label ${label}`);

    const events = watchEvents(label);
    cleanups.push(() => events.stop());
    cleanups.push(() => removeByLabel(support, label));

    const github = await support.startFakeGitHub({ repos: [{ owner: "bench", name: "hello", readme: "# hello\n\nA small app.", files: filesFor("setup") }] });
    cleanups.push(() => github.close());
    const accounts = Math.ceil(SETTINGS.rounds / ROUNDS_PER_ACCOUNT);
    const server = await startServerProcess(workDir, github.url, label, accounts, holderImage);
    cleanups.push(() => server.stop());
    const apps = [];
    for (let index = 0; index < accounts; index++) {
      const app = await setUpApp(server, github, index);
      apps.push(app);
      cleanups.push(() => api(app.client, `/app/sites/${app.site}/deployment`, { method: "DELETE" }).catch(() => undefined));
    }

    const contextDir = join(workDir, "context");
    // The bare-net side's own bridge network, as Reposite makes one per app.
    const network = `reposite-bench-${run}`;
    await support.docker(["network", "create", "--label", label, network]);
    // Each bare side's last deploy, serving until the next one answers.
    const last = {};
    const byHand = (side, network) => async (mark) => (last[side] = await bareDeploy(support, contextDir, mark, label, network, last[side]));
    const sides = {
      bare: byHand("bare"),
      "bare-net": byHand("bare-net", network),
      reposite: (mark, round) => repositeDeploy(server, github, apps[round % apps.length], mark),
    };
    const names = Object.keys(sides);

    // First deploy of each (the networks are made, the base image's layers are warm): shown, not counted.
    const first = {};
    for (const side of names) first[side] = await sides[side](`first-${run}-${side}`, 0);
    await annotate(events, Object.values(first));
    // The container serving each app, retired by its next deploy.
    const serving = [first.reposite.containerId];
    for (let index = 1; index < apps.length; index++) {
      const another = await sides.reposite(`first-${run}-app-${index}`, index);
      await annotate(events, [another]);
      serving.push(another.containerId);
    }
    console.log(`  first deploy: bare ${ms(first.bare.total)}, bare-net ${ms(first["bare-net"].total)}, Reposite ${ms(first.reposite.total)} to first 200 (${ms(first.reposite.finished)} to the run's end)  [not counted]`);

    const rounds = [];
    for (let round = 0; round < SETTINGS.rounds; round++) {
      const mark = `round-${round + 1}-${run}`;
      const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
      const result = {};
      for (const side of order) result[side] = await once(() => sides[side](`${mark}-${side}`, round), `round ${round + 1}, ${side}`);
      result.reposite.previous = serving[round % apps.length];
      await annotate(events, Object.values(result));
      serving[round % apps.length] = result.reposite.containerId;
      rounds.push(result);
      console.log(
        `  round ${round + 1}: bare ${ms(result.bare.total)}, bare-net ${ms(result["bare-net"].total)}, Reposite ${ms(result.reposite.total)} to first 200 (${ms(result.reposite.finished)} to the run's end), ratio ${(result.reposite.total / result.bare.total).toFixed(2)}x`,
      );
    }
    report(rounds);
  } catch (error) {
    benchFailed(error);
  } finally {
    await cleanUp();
  }
}

function report(rounds) {
  const bare = rounds.map((round) => round.bare);
  const bareNet = rounds.map((round) => round["bare-net"]);
  const reposite = rounds.map((round) => round.reposite);
  const ratios = rounds.map((round) => round.reposite.total / round.bare.total);
  const ratio = median(ratios);
  const ofMedians = median(reposite.map((each) => each.total)) / median(bare.map((each) => each.total));
  const toOwnNetwork = median(rounds.map((round) => round.reposite.total / round["bare-net"].total));
  console.log("  median:");
  console.log(`    bare docker build + run + first 200     ${ms(median(bare.map((each) => each.total)))}`);
  console.log(`    the same, run on its own network        ${ms(median(bareNet.map((each) => each.total)))}`);
  console.log(`    Reposite POST deploy to first 200 /app/ ${ms(median(reposite.map((each) => each.total)))}`);
  console.log(`    Reposite POST deploy to the run's end   ${ms(median(reposite.map((each) => each.finished)))}  (job done: the new container still up 100 ms after its first answer)`);
  console.log("  where the time goes (median ms from the start; docker events):");
  const phases = [
    ["image built", "built"],
    ["container created", "created"],
    ["container started", "started"],
    ["first 200", "total"],
    ["old container gone", "retired"],
    ["run's end (job done)", "finished"],
  ];
  console.log(`    ${"".padEnd(20)} ${"bare".padStart(8)} ${"bare-net".padStart(9)} ${"Reposite".padStart(9)}`);
  for (const [name, key] of phases) {
    const of = (list) => {
      const value = median(list.map((each) => each[key]).filter(Number.isFinite));
      return Number.isFinite(value) ? value.toFixed(0) : "-";
    };
    console.log(`    ${name.padEnd(20)} ${of(bare).padStart(8)} ${of(bareNet).padStart(9)} ${of(reposite).padStart(9)}`);
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const quartile = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))];
  console.log("  results:");
  console.log(`    Reposite / bare, same-round ratios' median  ${ratio.toFixed(3)}x  (target <= ${TARGET_RATIO.toFixed(2)}x: ${ratio <= TARGET_RATIO ? "met" : "NOT met"})`);
  console.log(`    spread of the same-round ratios             min ${sorted[0].toFixed(2)}x, quartiles ${quartile(0.25).toFixed(2)}x–${quartile(0.75).toFixed(2)}x, max ${sorted.at(-1).toFixed(2)}x (${ratios.length} rounds)`);
  console.log(`    Reposite / bare, ratio of the medians       ${ofMedians.toFixed(3)}x`);
  console.log(`    Reposite / bare-net, same-round median      ${toOwnNetwork.toFixed(3)}x  (the app's own network left out)`);
}

/**
 * Runs a side's deploy again, once, when a build failed because its context was pruned while it
 * read it: another client of a shared Engine (an older Reposite) pruning build contexts. Said.
 */
async function once(deploy, what) {
  try {
    return await deploy();
  } catch (error) {
    if (!/context not found/.test(String(error?.message))) throw error;
    console.log(`  ${what}: a build lost its context to another client's cache pruning ("context not found"); deployed again`);
    return deploy();
  }
}

// ------------------------------------------------------------------------------------------------
// The ways

/**
 * `docker build` with BuildKit. Debian's docker CLI needs the buildx plugin for `DOCKER_BUILDKIT=1`
 * (absent here), so the bare side asks the Engine directly, as the CLI would: the context as a tar
 * body to `POST /build?version=2`.
 */
function buildkitBuild(contextDir, tag, label) {
  const [key, value] = label.split("=");
  const query = new URLSearchParams({ version: "2", t: tag, labels: JSON.stringify({ [key]: value }) });
  const socket = (process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
  const script = `tar -C "$1" -c . | curl -sS --unix-socket "$2" -X POST -H 'Content-Type: application/x-tar' --data-binary @- "http://engine/build?$3"`;
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", script, "sh", contextDir, socket, query.toString()], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), SETTINGS.timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0 && !output.includes('"errorDetail"') && output.includes('"moby.image.id"')) resolve();
      else reject(new Error(`the bare BuildKit build of ${contextDir} failed (exit ${code}):\n${output.slice(-2000)}`));
    });
  });
}

/**
 * A redeploy by hand, as Reposite's is one: `docker build` + `docker run` of the same context (on
 * `network` when given) while the previous container keeps serving a visitor who asks as often as
 * the poll (Reposite's polls reach its previous container through /app/ until traffic switches),
 * then polls until the new one answers this round's mark. The previous container then goes, in the
 * background as Reposite retires its own.
 */
async function bareDeploy(support, contextDir, mark, label, network, previous) {
  await previous?.retired;
  rmSync(contextDir, { recursive: true, force: true });
  mkdirSync(contextDir, { recursive: true });
  for (const [path, content] of Object.entries(filesFor(mark))) writeFileSync(join(contextDir, path), content);
  const tag = `reposite-bench/bare:${mark}`;
  const port = await freePort();
  const start = Date.now();
  const visitor = previous ? visit(`http://127.0.0.1:${previous.port}/`) : null;
  let stdout;
  let total;
  try {
    await buildkitBuild(contextDir, tag, label);
    ({ stdout } = await support.docker(["run", "-d", "--label", label, ...(network ? ["--network", network] : []), "-p", `127.0.0.1:${port}:3000`, tag]));
    await untilAnswered(`http://127.0.0.1:${port}/`, {}, mark, start);
    total = Date.now() - start;
  } finally {
    // Also when the deploy failed: a visitor left asking would keep the run from ending.
    await visitor?.stop();
  }
  const id = stdout.trim();
  const retired = previous
    ? support.docker(["rm", "-f", previous.containerId]).then(() => support.docker(["rmi", previous.tag])).catch((error) => console.log(`bench: removing ${previous.tag}: ${error.message}`))
    : null;
  return { side: network ? "bare-net" : "bare", start, total, finished: total, tag, port, containerId: id, retired };
}

/** Asks `url` every `pollMs` on a new connection, as the poll does, until stopped. */
function visit(url) {
  let visiting = true;
  const done = (async () => {
    while (visiting) {
      await get(url, {}, POLL).catch(() => null);
      await sleep(SETTINGS.pollMs);
    }
  })();
  return {
    stop: () => {
      visiting = false;
      return done;
    },
  };
}

/** A deploy through the API; the job's stream tells when the run ended. */
async function repositeDeploy(server, github, app, mark) {
  github.addRepo({ ...app.repo, files: filesFor(mark) });
  const start = Date.now();
  const answer = await api(app.client, `/app/sites/${app.site}/deployment/deploy`, { method: "POST" });
  if (answer.status !== 202) throw new Error(`deploy answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  const { job_id: jobId, run_id: runId } = answer.body;
  const ended = jobEnd(app.client, jobId);
  // A run that failed says why at once, instead of the polls waiting out their time.
  const failed = ended.then(async (end) => {
    if (end.event === "done") return new Promise(() => undefined);
    const record = (await api(app.client, `/app/sites/${app.site}/deployment/runs/${runId}`)).body;
    throw new Error(`run ${runId} ended ${record.status}: ${record.reason ?? ""}\n${record.log_tail ?? ""}`);
  });
  failed.catch(() => undefined); // read again below once the app answered
  await Promise.race([untilAnswered(`${server.url}/app/`, { host: app.host }, mark, start), failed]);
  const total = Date.now() - start;
  const end = await ended;
  const finished = end.at - start;
  const record = (await api(app.client, `/app/sites/${app.site}/deployment/runs/${runId}`)).body;
  if (end.event !== "done" || record.status !== "done") throw new Error(`run ${runId} ended ${record.status}: ${record.reason ?? ""}\n${record.log_tail ?? ""}`);
  return { side: "reposite", start, total, finished, runId };
}

/**
 * Adds, from the Engine's events, when the image was tagged and the app's container made and
 * started (ms from the start), and for a redeploy when the container it replaced was removed.
 * Build steps' containers run from an image id (`sha256:…`); the bare app's from its tag, and
 * Reposite's app (run by provider-docker's AppRuntime from the image id) is known by its role label.
 */
async function annotate(events, results) {
  await new Promise((done) => setTimeout(done, 200)); // the last events of the round on their way
  for (const result of results) {
    const ours = (event) => (result.runId ? event.Actor?.Attributes?.["dev.reposite.run"] === result.runId : event.Actor?.Attributes?.name === result.tag || event.from === result.tag);
    const tagged = events.list.find((event) => event.Type === "image" && event.Action === "tag" && ours(event));
    const created = events.list.find((event) => event.Type === "container" && event.Action === "create" && ours(event) && (result.runId ? event.Actor?.Attributes?.["dev.reposite.role"] === "app" : !event.from.startsWith("sha256:")));
    const started = created && events.list.find((event) => event.Type === "container" && event.Action === "start" && event.id === created.id);
    const since = (event) => (event ? event.timeNano / 1e6 - result.start : NaN);
    result.built = since(tagged);
    result.created = since(created);
    result.started = since(started);
    result.containerId = created?.id;
    if (result.previous) result.retired = since(events.list.find((event) => event.Type === "container" && event.Action === "destroy" && event.id === result.previous));
  }
}

// ------------------------------------------------------------------------------------------------
// The server and the app

/** `reposite serve` as an operator runs it, on a temp data dir, hosting apps on this machine's Engine. */
async function startServerProcess(workDir, githubUrl, label, accounts, holderImage) {
  const port = await freePort();
  const env = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    REPOSITE_DATA_DIR: join(workDir, "data"),
    REPOSITE_GITHUB_API_URL: githubUrl,
    REPOSITE_APP_LABELS: label,
    REPOSITE_NETWORK_HOLDER_IMAGE: holderImage,
  };
  // One account per app, made before the server opens the data directory.
  const tokens = [];
  for (let index = 0; index < accounts; index++) {
    const email = index === 0 ? "bench@example.com" : `bench-${index}@example.com`;
    tokens.push((await collect(spawn(process.execPath, [BIN, "admin", "create-token", "--email", email, "--name", "bench"], { env }))).stdout.trim());
  }
  const token = tokens[0];
  const child = spawn(process.execPath, [BIN, "serve"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((done) => child.once("exit", done));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 20_000;
  while (!(await get(`${url}/healthz`, {}, POLL).then((answer) => answer.status === 200, () => false))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill("SIGKILL");
      throw new Error(`the server did not start:\n${output}`);
    }
    await sleep(50);
  }
  const hosting = /app hosting: .*/.exec(output)?.[0] ?? "app hosting: (not said)";
  console.log(`bench: reposite serve on ${url}, ${hosting}`);
  if (!/app hosting: docker/.test(hosting)) throw new Error(`the server hosts no apps:\n${output}`);
  return {
    url,
    port,
    token,
    tokens,
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A project of account `index` for its own repository, its landing page published (the /app/ proxy serves a published site's host) and a deployment set up. */
async function setUpApp(server, github, index) {
  const name = index === 0 ? "hello" : `hello-${index}`;
  const client = { url: server.url, token: server.tokens[index] };
  const repo = { owner: "bench", name, readme: `# ${name}\n\nA small app.`, files: filesFor("setup") };
  github.addRepo(repo);
  const site = (await expectStatus(api(client, "/app/sites", { method: "POST", body: { repohost_url: `github.com/bench/${name}` } }), 201)).id;
  await expectStatus(api(client, `/app/sites/${site}/deployment`, { method: "PUT", body: {} }), 201);
  const job = (await expectStatus(api(client, `/app/sites/${site}/generate`, { method: "POST", body: { mode: "landing" } }), 202)).job_id;
  const generated = await jobEnd(client, job);
  if (generated.event !== "done") throw new Error(`generating the landing page ended ${generated.event}`);
  await expectStatus(api(client, `/app/sites/${site}/publish`, { method: "POST", body: {} }), 200);
  const { slug } = await expectStatus(api(client, `/app/sites/${site}/deployment`), 200);
  return { site, repo, slug, client, host: `${slug}.localhost:${server.port}` };
}

/** Follows a job's event stream until `done` or `error`; answers which, and when it arrived. */
function jobEnd(client, jobId) {
  return new Promise((done, reject) => {
    const req = httpRequest(`${client.url}/app/jobs/${jobId}/stream`, { headers: { authorization: `Bearer ${client.token}`, accept: "text/event-stream" }, agent: false }, (res) => {
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        buffer += chunk;
        const end = /^event: (done|error)$/m.exec(buffer);
        if (end) {
          done({ event: end[1], at: Date.now() });
          req.destroy();
        }
      });
      res.on("end", () => reject(new Error(`the stream of job ${jobId} ended without done or error`)));
    });
    req.setTimeout(SETTINGS.timeoutMs, () => req.destroy(new Error(`job ${jobId} did not end within ${SETTINGS.timeoutMs / 1000} s`)));
    req.on("error", (error) => (error.code === "ECONNRESET" ? undefined : reject(error)));
    req.end();
  });
}

/** Polls `url` every `pollMs` until it answers 200 with `mark` (an old container answers another mark). */
async function untilAnswered(url, headers, mark, start) {
  for (;;) {
    const answer = await get(url, headers, POLL).catch(() => null);
    if (answer?.status === 200 && answer.body.toString() === mark) return;
    if (Date.now() - start > SETTINGS.timeoutMs) throw new Error(`${url} did not answer ${mark} within ${SETTINGS.timeoutMs / 1000} s (last: ${answer?.status ?? "no answer"})`);
    await sleep(SETTINGS.pollMs);
  }
}

// ------------------------------------------------------------------------------------------------
// Docker

/** `docker events` for everything carrying the run's label, kept in a list. */
function watchEvents(label) {
  const child = spawn("docker", ["events", "--format", "{{json .}}", "--filter", `label=${label}`], { stdio: ["ignore", "pipe", "ignore"] });
  const list = [];
  let rest = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop();
    for (const line of lines) if (line.trim()) list.push(JSON.parse(line));
  });
  return {
    list,
    stop: () => {
      child.kill("SIGTERM");
    },
  };
}

/** Every container, image, volume and network carrying the run's label. */
async function removeByLabel(support, label) {
  const ids = async (args) => (await support.docker(args)).stdout.split("\n").filter(Boolean);
  const containers = await ids(["ps", "-aq", "--filter", `label=${label}`]);
  if (containers.length) await support.docker(["rm", "-f", ...containers]);
  const images = [...new Set(await ids(["images", "-q", "--filter", `label=${label}`]))];
  if (images.length) await support.docker(["rmi", "-f", ...images]);
  const volumes = await ids(["volume", "ls", "-q", "--filter", `label=${label}`]);
  if (volumes.length) await support.docker(["volume", "rm", ...volumes]);
  const networks = await ids(["network", "ls", "-q", "--filter", `label=${label}`]);
  if (networks.length) await support.docker(["network", "rm", ...networks]);
}

/**
 * The test-support helpers (`buildLocalBaseImages`, the `docker` CLI helper, the fake GitHub) are
 * TypeScript; esbuild bundles the three into one module for plain node.
 */
async function loadTestSupport(workDir) {
  const { build } = await import("esbuild");
  const outfile = join(workDir, "test-support.mjs");
  await build({
    stdin: {
      contents:
        'export { buildLocalBaseImages, docker, LOCAL_BASE_IMAGES } from "./src/docker.ts";\nexport { startFakeGitHub } from "./src/fake-github.ts";\nexport { buildLocalPauseImage } from "./src/pause-image.ts";\n',
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

// ------------------------------------------------------------------------------------------------
// Helpers

/** A request to the API as `client` ({url, token}): the server itself is its first account's. */
async function api(client, path, { method = "GET", body } = {}) {
  const response = await fetch(`${client.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${client.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function expectStatus(answer, status) {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`expected ${status}, got ${got}: ${JSON.stringify(body)}`);
  return body;
}

function collect(child) {
  return new Promise((done, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? done({ stdout, stderr }) : reject(new Error(`exit ${code}: ${stderr}`))));
  });
}

const ms = (value) => `${Number(value).toFixed(0)} ms`;
const sleep = (milliseconds) => new Promise((done) => setTimeout(done, milliseconds));

await main();
