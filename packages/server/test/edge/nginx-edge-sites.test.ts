import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, readlink, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createReposite, ProjectStore } from "@reposite/core";
import { freePort, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_REPOS, json } from "../harness.js";
import { startServerProcess, stopLeftNginx, type ServerProcess } from "../server-process.js";

// `reposite serve` with REPOSITE_EDGE=nginx, in its own process, with the machine's nginx: a
// published site's files are written under <dataDir>/edge/sites and nginx serves them itself,
// with the headers the Node runtime sends (compared with a server without the edge).

const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(port: number, host: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers: { host, ...headers }, agent: false, timeout: 5_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within 5 s`)));
    req.on("error", reject);
    req.end();
  });
}

const decoded = (answer: Answer) =>
  answer.headers["content-encoding"] === "br" ? brotliDecompressSync(answer.body) : answer.headers["content-encoding"] === "gzip" ? gunzipSync(answer.body) : answer.body;

/** The headers both runtimes promise for a site's file (nginx adds Server, Date, Accept-Ranges; its ETags are its own). */
const COMPARED = ["content-type", "content-encoding", "content-length", "cache-control", "vary", "x-content-type-options", "content-security-policy", "last-modified", "location", "allow"];
const compared = (answer: Answer) => Object.fromEntries(COMPARED.filter((name) => answer.headers[name] !== undefined).map((name) => [name, answer.headers[name]]));

const page = (words: string) => `<!doctype html><html><head><title>Rocket</title></head><body><h1>${words}</h1><p>${"Launch rockets from the terminal. ".repeat(40)}</p></body></html>`;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

describe.runIf(nginxHere)("REPOSITE_EDGE=nginx serves published sites from files", () => {
  let github: FakeGitHub;
  let dataDir: string;
  let plainDir: string;
  let port: number;
  let server: ServerProcess;
  let plain: ServerProcess | undefined;
  let token: string;
  let siteId: string;
  let host: string;
  let slug: string;
  /** Page views sent through nginx: 200/304 answers to a GET of a page by a browser. */
  let pageViews = 0;

  const env = () => ({ REPOSITE_EDGE: "nginx", REPOSITE_DATA_DIR: dataDir, REPOSITE_GITHUB_API_URL: github.url, REPOSITE_HOSTING: "off" });
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const publish = async (words: string) => {
    await api(`/app/sites/${siteId}/versions`, json({ kind: "template", html: page(words), name: words }));
    return api<{ url: string }>(`/app/sites/${siteId}/publish`, json({ discourse: true }));
  };
  const siteDir = () => join(dataDir, "edge", "sites", slug);
  /** Waits until nginx itself serves the page with `words` (the files are written, and a new site's host is in the map). */
  const servedByNginx = async (words: string) => {
    for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const answer = await get(port, host, "/", { "user-agent": BROWSER });
      if (answer.status === 200) pageViews += 1;
      if (answer.headers["x-reposite-edge"] === "nginx" && decoded(answer).toString().includes(words)) return;
      if (Date.now() > deadline) throw new Error(`nginx did not serve "${words}": ${answer.status}`);
    }
  };
  /** Runs `check` while Node is frozen: whatever answers is nginx alone. */
  const withNodeStopped = async (check: () => Promise<void>) => {
    server.child.kill("SIGSTOP");
    try {
      await check();
    } finally {
      server.child.kill("SIGCONT");
    }
  };

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: DEFAULT_REPOS });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-edge-sites-"));
    const setup = createReposite({ config: { dataDir }, repoHosts: [] });
    const { account } = await setup.accounts.findOrCreate("owner@example.com");
    token = (await setup.tokens.create(account.id, { name: "edge", lifetime: "30d" })).secret;
    await setup.close();
    port = await freePort();
    server = await startServerProcess(port, env());
    siteId = (await api<{ id: string }>("/app/sites", json({ repohost_url: "https://github.com/acme/rocket-cli" }))).id;
    host = new URL((await publish("First launch")).url).host;
    slug = host.split(".")[0]!;
    await servedByNginx("First launch");
  }, 60_000);

  afterAll(async () => {
    await plain?.kill();
    if (server && server.child.exitCode === null && server.child.signalCode === null) await server.kill();
    // An nginx left behind by a killed server (the kill -9 case) is stopped by its pid.
    if (dataDir) await stopLeftNginx(dataDir);
    await github?.close();
    for (const dir of [dataDir, plainDir]) if (dir) await rm(dir, { recursive: true, force: true });
  }, 30_000);

  it("writes the site's files with .gz and .br beside them, and nginx serves pages, sitemap, robots, favicon and the 404 page while Node is stopped", async () => {
    const current = join(siteDir(), "current");
    expect(await readlink(current)).toMatch(/^v/);
    expect(await readdir(current)).toEqual(expect.arrayContaining(["index.html", "index.html.gz", "index.html.br", "404.html", "404.html.br"]));
    expect(await readdir(join(current, "files"))).toEqual(expect.arrayContaining(["sitemap.xml", "sitemap.xml.gz", "sitemap.xml.br", "favicon.svg"]));
    // robots.txt is tiny: when brotli does not shrink it, it lies apart, sent without Vary as Node sends it.
    const plain = await readdir(join(current, "plain")).catch(() => []);
    expect([...(await readdir(join(current, "files"))), ...plain]).toContain("robots.txt");
    // favicon.ico is a PNG: written under a name whose extension says so.
    expect(await readdir(join(current, "typed"))).toEqual(["favicon.ico.png"]);

    await withNodeStopped(async () => {
      for (const encoding of ["br", "gzip", "identity"]) {
        const answer = await get(port, host, "/", { "accept-encoding": encoding, "user-agent": BROWSER });
        pageViews += 1;
        expect(answer.status).toBe(200);
        expect(answer.headers["content-encoding"]).toBe(encoding === "identity" ? undefined : encoding);
        expect(decoded(answer).toString()).toContain("First launch");
      }
      const sitemap = await get(port, host, "/sitemap.xml");
      expect(sitemap.status).toBe(200);
      expect(sitemap.body.toString()).toContain(`<loc>http://${host}/</loc>`);
      expect((await get(port, host, "/robots.txt")).body.toString()).toContain("Sitemap:");
      expect((await get(port, host, "/favicon.ico")).status).toBe(200);
      const missing = await get(port, host, "/no-such-page", { "accept-encoding": "br" });
      expect(missing.status).toBe(404);
      expect(missing.headers["content-encoding"]).toBe("br");
      expect(decoded(missing).toString()).toContain("<html");
      // A revisit: nginx answers 304 on its own validator.
      const first = await get(port, host, "/", { "accept-encoding": "br", "user-agent": BROWSER });
      const again = await get(port, host, "/", { "accept-encoding": "br", "if-none-match": String(first.headers.etag), "user-agent": BROWSER });
      pageViews += 2;
      expect(again.status).toBe(304);
    });
  });

  it("sends the same status, headers and body as the Node runtime for every file, encoding and the 404 page", async () => {
    plainDir = await mkdtemp(join(tmpdir(), "reposite-edge-plain-"));
    await cp(dataDir, plainDir, { recursive: true, filter: (source) => !source.startsWith(join(dataDir, "edge")) });
    const plainPort = await freePort();
    plain = await startServerProcess(plainPort, { REPOSITE_DATA_DIR: plainDir, REPOSITE_GITHUB_API_URL: github.url, REPOSITE_HOSTING: "off" });
    const plainHost = host.replace(`:${port}`, `:${plainPort}`);
    const paths = ["/", "/sitemap.xml", "/robots.txt", "/favicon.svg", "/favicon.ico", "/og.png", "/no-such-page"];
    const differences: string[] = [];
    let compares = 0;
    for (const path of paths) {
      for (const encoding of ["br", "gzip", "identity"]) {
        const [fromNginx, fromNode] = [await get(port, host, path, { "accept-encoding": encoding }), await get(plainPort, plainHost, path, { "accept-encoding": encoding })];
        const label = `${path} (${encoding})`;
        if (fromNginx.status !== fromNode.status) differences.push(`${label}: status ${fromNginx.status} vs ${fromNode.status}`);
        // One snapshot on both: the same bytes, whichever address they were asked at.
        if (!decoded(fromNginx).equals(decoded(fromNode))) differences.push(`${label}: bodies differ`);
        expect(compared(fromNginx), label).toEqual(compared(fromNode));
        // Each shape has strong validators of its own; a 404 has none in either.
        expect(fromNginx.headers.etag === undefined, label).toBe(fromNode.headers.etag === undefined);
        if (fromNginx.headers.etag) expect(String(fromNginx.headers.etag)).toMatch(/^"/);
        compares += 1;
        if (fromNginx.status === 200) {
          const revisit = await get(port, host, path, { "accept-encoding": encoding, "if-none-match": String(fromNginx.headers.etag) });
          const nodeRevisit = await get(plainPort, plainHost, path, { "accept-encoding": encoding, "if-none-match": String(fromNode.headers.etag) });
          expect(revisit.status, label).toBe(304);
          expect(compared(revisit), `${label} 304`).toEqual(compared(nodeRevisit));
        }
      }
    }
    expect(differences).toEqual([]);
    expect(compares).toBe(21);
  }, 60_000);

  it("leaves sign-in, the forum, trailing slashes and other methods to Node", async () => {
    const auth = await get(port, host, "/auth");
    expect(auth.status).toBe(200);
    expect(auth.body.toString()).toMatch(/sign in/i);
    expect((await get(port, host, "/community")).status).not.toBe(404);
    const slash = await get(port, host, "/sitemap.xml/");
    expect(slash.status).toBe(301);
    expect(slash.headers.location).toBe("/sitemap.xml");
    const post = await get(port, host, "/", {}, "POST");
    expect(post.status).toBe(405);
    // Under those paths and the domain's proof: Node; a path that only starts like one is a read nginx answers.
    for (const path of ["/auth/sign-in", "/community/", "/.well-known/reposite-domain", "/about/"]) {
      expect((await get(port, host, path)).headers["x-reposite-edge"], path).toBeUndefined();
    }
    const lookalike = await get(port, host, "/authors");
    expect(lookalike.status).toBe(404);
    expect(lookalike.headers["x-reposite-edge"]).toBe("nginx");
    // And while Node is stopped, they wait for it: nginx does not answer them from files.
    await withNodeStopped(async () => {
      await expect(get(port, host, "/auth")).rejects.toThrow(/no answer/);
    });
  }, 30_000);

  it("switches a re-publish atomically: a visitor gets one publish or the other, and two versions stay on disk", async () => {
    const before = await readlink(join(siteDir(), "current"));
    let stop = false;
    const seen = new Set<string>();
    const failures: string[] = [];
    const reader = async () => {
      while (!stop) {
        const answer = await get(port, host, "/", { "accept-encoding": "gzip", "user-agent": BROWSER });
        if (answer.status === 200) pageViews += 1;
        const text = decoded(answer).toString();
        const which = ["First launch", "Second launch", "Third launch"].find((words) => text.includes(words));
        if (answer.status !== 200 || !which || !text.endsWith("</html>")) failures.push(`${answer.status} ${text.slice(0, 80)}`);
        else seen.add(which);
      }
    };
    const readers = Promise.all([reader(), reader()]);
    await publish("Second launch");
    await servedByNginx("Second launch");
    await publish("Third launch");
    await servedByNginx("Third launch");
    stop = true;
    await readers;
    expect(failures).toEqual([]);
    expect(seen.has("Third launch")).toBe(true);
    // Older versions go right after the switch.
    const versionsOnDisk = async () => (await readdir(siteDir())).filter((entry) => entry.startsWith("v"));
    for (const deadline = Date.now() + 5_000; (await versionsOnDisk()).length > 2 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    const versions = await versionsOnDisk();
    expect(versions).toHaveLength(2);
    expect(versions).not.toContain(before);
    expect(versions).toContain(await readlink(join(siteDir(), "current")));
  }, 60_000);

  it("counts the pages nginx served as visits, without Node serving them", async () => {
    await withNodeStopped(async () => {
      for (let i = 0; i < 5; i++) {
        expect((await get(port, host, "/", { "user-agent": BROWSER })).status).toBe(200);
        pageViews += 1;
      }
      // Not page views: a bot, an image, the sitemap.
      await get(port, host, "/", { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" });
      await get(port, host, "/favicon.svg", { "user-agent": BROWSER });
      await get(port, host, "/sitemap.xml", { "user-agent": BROWSER });
    });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the log lines queued while Node was stopped
    await server.stop(); // counts are written at shutdown
    const reader = createReposite({ config: { dataDir }, repoHosts: [] });
    const project = await reader.container.resolve(ProjectStore).get(siteId);
    await reader.close();
    expect(project?.visits).toBe(pageViews);
    expect(pageViews).toBeGreaterThan(10);
    server = await startServerProcess(port, env());
    await servedByNginx("Third launch");
  }, 60_000);

  it("keeps the site whole when the server is killed with -9 right after a publish, and catches up at the next start", async () => {
    await publish("Fourth launch");
    await server.kill();
    // nginx outlives its killed parent: it still serves one whole publish or the other.
    const text = decoded(await get(port, host, "/", { "accept-encoding": "br" })).toString();
    expect(["Third launch", "Fourth launch"].filter((words) => text.includes(words))).toHaveLength(1);
    expect(text.endsWith("</html>")).toBe(true);
    await stopLeftNginx(dataDir);
    server = await startServerProcess(port, env());
    await servedByNginx("Fourth launch");
    expect((await readdir(siteDir())).filter((entry) => entry.startsWith("v")).length).toBeLessThanOrEqual(2);
  }, 60_000);

  it("takes a removed site's pages off: no files, no route, and Reposite's 'no site here'", async () => {
    await api(`/app/sites/${siteId}?purge=1`, { method: "DELETE" }).catch(() => undefined);
    for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const answer = await get(port, host, "/");
      if (answer.status === 404 && answer.body.toString().includes("No site here")) break;
      if (Date.now() > deadline) throw new Error(`the site is still served: ${answer.status}`);
    }
    await expect(readdir(siteDir())).rejects.toThrow();
    for (const deadline = Date.now() + 5_000; (await readFile(join(dataDir, "edge", "routes.conf"), "utf8")).includes(`"${host.split(":")[0]}"`); ) {
      if (Date.now() > deadline) throw new Error("the site's host is still in routes.conf");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 30_000);
});
