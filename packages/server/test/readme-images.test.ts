import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeGitHub, TEST_PNG, TEST_SVG, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../src/start-server.js";

// Issue 15, "Images": a README's screenshots and logo, served by the repository host as raw files,
// are copied to the site and shown with their alt text; badges are left out; a picture too large
// to copy is dropped. Through a real server: the API, the generation job, publishing, the site host.

const SCREENSHOT = Buffer.concat([TEST_PNG, Buffer.from("screenshot")]);
const DIAGRAM = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2"><rect width="4" height="2"/></svg>`;
const HUGE = Buffer.alloc(2 * 1024 * 1024 + 1);

const README = `<p align="center"><img src="docs/logo.svg" alt="Rocket logo" width="96"></p>
<h1 align="center">Rocket CLI</h1>

[![Build](https://img.shields.io/badge/build-passing-green.svg)](https://github.com/acme/rocket-cli/actions)

Launch rockets from your terminal, fast and safely.

![The launch dashboard](docs/screenshot.png)

## How it works

Rocket CLI plans the trajectory, then counts down.

![Trajectory diagram](docs/diagram.svg)

## Install

\`\`\`sh
npm install -g rocket-cli
\`\`\`

![Countdown recording](docs/countdown.png)
`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET to the server with the site's Host (Node's fetch would drop it). */
function getFromSite(base: string, path: string, host: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a README's pictures on the published site", () => {
  let github: FakeGitHub;
  let server: RunningServer;
  let dataDir: string;
  let token: string;
  let said = "";
  let home: string;
  const HOST = "rocket.sites.test";

  const api = async (path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };

  beforeAll(async () => {
    github = await startFakeGitHub({
      webHost: "self",
      repos: [
        {
          owner: "acme",
          name: "rocket-cli",
          description: "Launch rockets from your terminal",
          readme: README,
          rawFiles: {
            "docs/logo.svg": { contentType: "image/svg+xml", body: TEST_SVG },
            "docs/screenshot.png": { contentType: "image/png", body: SCREENSHOT },
            "docs/diagram.svg": { contentType: "image/svg+xml; charset=utf-8", body: DIAGRAM },
            "docs/countdown.png": { contentType: "image/png", body: HUGE },
          },
        },
      ],
    });
    dataDir = await mkdtemp(join(tmpdir(), "reposite-readme-images-"));
    server = await startServer({
      settings: {
        listen: { port: 0, hostname: "127.0.0.1" },
        reposite: {
          github: { apiUrl: github.url, webUrl: github.webUrl },
          // Everything here is on the loopback: the operator allows private addresses (see the core tests for the refusal).
          config: { dataDir, baseUrl: "http://127.0.0.1:3000", sitesDomain: "sites.test", allowPrivateFetch: true },
        },
      },
    });
    const { account } = await server.reposite.accounts.findOrCreate("pat@example.com");
    token = (await server.reposite.tokens.create(account.id, { name: "test", lifetime: "30d" })).secret;

    const created = await api("/app/sites", { repohost_url: `${github.webUrl}/acme/rocket-cli` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const siteId = created.body.id as string;
    const started = await api(`/app/sites/${siteId}/generate`, { mode: "landing" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    for await (const event of server.reposite.jobs.events(account.id, started.body.job_id)) if (event.type === "delta") said += event.t;
    expect((await api(`/app/jobs/${started.body.job_id}`)).body).toMatchObject({ status: "done", error: null });
    expect((await api(`/app/sites/${siteId}/slug`, { slug: "rocket" })).status).toBe(200);
    expect((await api(`/app/sites/${siteId}/publish`, {})).status).toBe(200);
    const page = await getFromSite(server.url, "/", HOST);
    expect(page.status).toBe(200);
    home = page.body.toString("utf8");
  });

  afterAll(async () => {
    await server?.close();
    await github?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const imgTag = (alt: string) => new RegExp(`<img src="(/_images/[0-9a-f]{16}\\.(?:png|svg))" alt="${alt}"`).exec(home)?.[1];

  it("shows the screenshot from the site's own address, with the README's alt text, and serves its bytes for a long time", async () => {
    const src = imgTag("The launch dashboard");
    expect(src).toMatch(/\.png$/);
    const image = await getFromSite(server.url, src!, HOST);
    expect(image.status).toBe(200);
    expect(image.headers["content-type"]).toBe("image/png");
    expect(image.body.equals(SCREENSHOT)).toBe(true);
    expect(image.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(image.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("serves an SVG picture with a policy that forbids scripts", async () => {
    const src = imgTag("Trajectory diagram");
    expect(src).toMatch(/\.svg$/);
    const image = await getFromSite(server.url, src!, HOST);
    expect(image.status).toBe(200);
    expect(image.headers["content-type"]).toBe("image/svg+xml");
    expect(image.body.toString("utf8")).toBe(DIAGRAM);
    expect(image.headers["content-security-policy"]).toMatch(/default-src 'none'.*sandbox/);
  });

  it("uses the README's logo as the site's logo, inline", () => {
    expect(home).toContain(`data:image/svg+xml;base64,${Buffer.from(TEST_SVG).toString("base64")}`);
  });

  it("leaves the badge out and drops the picture too large to copy, saying so in the job", () => {
    expect(home).not.toMatch(/shields\.io|alt="Build"/);
    expect(home).not.toContain("Countdown recording");
    expect(said).toContain(`${github.webUrl}/acme/rocket-cli/raw/branch/main/docs/countdown.png was left out: it is larger than 2 MB.`);
    expect(github.requests.some((each) => each.path.includes("countdown.png"))).toBe(true);
  });

  it("never points a visitor at the repository host for a picture", () => {
    expect(home).not.toContain(`${github.webUrl}/acme/rocket-cli/raw/`);
    expect([...home.matchAll(/<img\b[^>]*\bsrc="([^"]*)"/g)].every((match) => match[1]!.startsWith("/_images/") || match[1]!.startsWith("data:image/"))).toBe(true);
  });

  it("answers 404 for a picture the site does not have", async () => {
    expect((await getFromSite(server.url, "/_images/0123456789abcdef.png", HOST)).status).toBe(404);
  });
});
