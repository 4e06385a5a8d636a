import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeGitHub, TEST_PNG as PNG, TEST_SVG as SVG, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createReposite,
  MAX_SITE_IMAGE_BYTES,
  PublishedSiteStore,
  SiteImages,
  STORAGE,
  type AboutContent,
  type LandingContent,
  type Reposite,
} from "../src/index.js";

/** A distinct small "PNG" per number: the type is judged by the answer's header, the name by the bytes. */
const numbered = (n: number) => Buffer.concat([PNG, Buffer.from([n])]);
const nameOf = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex").slice(0, 16);
const BIG_LOGO = Buffer.alloc(70 * 1024);

let host: Server;
let H: string;

/** The pictures a README names: screenshots, one too large, a logo, a page that is no image. */
async function startPictureHost(): Promise<void> {
  host = createServer((req, res) => {
    const send = (type: string, body: Buffer | string) => {
      res.writeHead(200, { "content-type": type });
      res.end(body);
    };
    const path = req.url ?? "/";
    const n = /^\/n\/(\d+)\.png$/.exec(path);
    if (n) return send("image/png", numbered(Number(n[1])));
    if (path === "/shot.png" || path === "/same-shot.png") return send("image/png", PNG);
    if (path === "/big.png") return send("image/png", Buffer.alloc(MAX_SITE_IMAGE_BYTES + 1));
    if (path === "/logo.svg") return send("image/svg+xml", SVG);
    if (path === "/big-logo.png") return send("image/png", BIG_LOGO);
    if (path === "/page.html") return send("text/html", "<p>no picture</p>");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  H = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
}

/** A stand-in for the generation job: what it was told, and its signal. */
function job() {
  const lines: string[] = [];
  return { lines, write: (text: string) => lines.push(text), signal: new AbortController().signal };
}

const landing = (hero: string, sections: LandingContent["sections"]): LandingContent => ({
  kind: "template",
  meta: { title: "Rocket", description: "Rockets" },
  hero: { title: "Rocket", subtitle: "Launch rockets.", primary_cta: { label: "Start" }, image: { src: hero, alt: "The launch dashboard" } },
  features: [{ title: "Fast", body: "Launches in milliseconds." }],
  sections,
  closing: { title: "Go", body: "Launch one.", cta: { label: "Start" } },
});

const readmeWith = (logo: string) => `<h1 align="center"><img src="${logo}" alt="Rocket logo" width="120"><br>Rocket CLI</h1>

[![CI](https://img.shields.io/badge/ci-passing-green.svg)](https://github.com/acme/rocket-cli/actions)

Launch rockets from your terminal, fast and safely.

![The launch dashboard](${H}/shot.png)

## How it works

Rocket CLI plans the trajectory, then counts down.

![Trajectory planner](${H}/big.png)
`;

describe("README pictures copied to the site", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let images: SiteImages;
  let ownerId: string;

  beforeAll(async () => {
    await startPictureHost();
    github = await startFakeGitHub({
      repos: [
        { owner: "acme", name: "rocket-cli", description: "Rockets", readme: readmeWith(`${H}/logo.svg`) },
        { owner: "acme", name: "big-logo", description: "Rockets", readme: readmeWith(`${H}/big-logo.png`) },
      ],
    });
    reposite = createReposite({
      storage: createStorage(),
      config: { allowPrivateFetch: true, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      github: { apiUrl: github.url, webHosts: ["github.com"] },
    });
    images = reposite.container.resolve(SiteImages);
    ownerId = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
  });
  afterAll(async () => {
    await reposite.publishing.idle();
    await reposite.close();
    await github.close();
    await new Promise<void>((resolve) => host.close(() => resolve()));
  });

  const newSite = async (repo = "rocket-cli") => (await reposite.projects.create(ownerId, { repohost_url: `github.com/acme/${repo}` })).id;
  const storedNames = async (siteId: string) => (await reposite.container.resolve(STORAGE).getKeys(`site-images:${siteId}:`)).map((key) => key.split(":").pop());

  it("names each picture by its address on the site, stores it once per content, and leaves out what cannot be copied", async () => {
    const siteId = await newSite();
    const content = landing(`${H}/shot.png`, [
      { title: "Same picture", body: "", image: { src: `${H}/same-shot.png`, alt: "Again" } },
      { title: "Too large", body: "Kept without its picture.", image: { src: `${H}/big.png`, alt: "Big" } },
      { title: "Not a picture", body: "", image: { src: `${H}/page.html`, alt: "Page" } },
      { title: "Gone", body: "", image: { src: `${H}/missing.png`, alt: "Missing" } },
      { title: "Inline", body: "Stays.", image: { src: `data:image/png;base64,${PNG.toString("base64")}`, alt: "Inline" } },
      { title: "Other scheme", body: "Stays, without it.", image: { src: "javascript:alert(1)", alt: "Script" } },
    ]);
    const before = structuredClone(content);
    const stream = job();
    const copied = await images.copyInto(ownerId, siteId, content, stream);

    const path = `/_images/${nameOf(PNG)}.png`;
    expect(copied.hero.image).toEqual({ src: path, alt: "The launch dashboard" });
    expect(copied.sections).toEqual([
      { title: "Same picture", body: "", image: { src: path, alt: "Again" } },
      { title: "Too large", body: "Kept without its picture." },
      { title: "Inline", body: "Stays.", image: before.sections[4]!.image },
      { title: "Other scheme", body: "Stays, without it." },
    ]);
    expect(content).toEqual(before);
    const said = stream.lines.join("");
    expect(said).toContain(`The picture at ${H}/big.png was left out: it is larger than 2 MB.`);
    expect(said).toContain(`The picture at ${H}/page.html was left out: it is text/html, not a PNG, JPEG, GIF, WebP, AVIF or SVG image.`);
    expect(said).toContain(`The picture at ${H}/missing.png was left out: it answered 404.`);

    expect(await storedNames(siteId)).toEqual([nameOf(PNG)]);
    const record = await reposite.container.resolve(STORAGE).getItem<{ sha256: string; content_type: string; body: string }>(`site-images:${siteId}:${nameOf(PNG)}`);
    expect(record).toMatchObject({ sha256: createHash("sha256").update(PNG).digest("hex"), content_type: "image/png", body: PNG.toString("base64") });
  });

  it("keeps an About page's only section when its picture is left out (the page needs one)", async () => {
    const siteId = await newSite();
    const about: AboutContent = {
      kind: "about",
      meta: { title: "About", description: "About Rocket" },
      title: "About",
      intro: "Rockets.",
      sections: [{ title: "Screenshot", body: "", image: { src: `${H}/page.html`, alt: "Page" } }],
      facts: [],
    };
    expect((await images.copyInto(ownerId, siteId, about, job())).sections).toEqual([{ title: "Screenshot", body: "" }]);
  });

  it("keeps at most 8 pictures per site, counting those the site's other pages show once", async () => {
    const siteId = await newSite();
    const onLanding = [0, 1, 2].map((n) => `/_images/${nameOf(numbered(n))}.png`);
    await reposite.pageVersions.add({
      ownerId,
      siteId,
      kind: "template",
      name: "test",
      html: onLanding.map((src) => `<img src="${src}" alt="">`).join(""),
      source: "custom",
      design: null,
    });
    const about: AboutContent = {
      kind: "about",
      meta: { title: "About", description: "About Rocket" },
      title: "About",
      intro: "Rockets.",
      sections: [0, 3, 4, 5, 6, 7, 8, 9].map((n) => ({ title: `Shot ${n}`, body: `Shot ${n}.`, image: { src: `${H}/n/${n}.png`, alt: `Shot ${n}` } })),
      facts: [],
    };
    const stream = job();
    const copied = await images.copyInto(ownerId, siteId, about, stream);
    const kept = copied.sections.filter((section) => section.image).map((section) => section.title);
    // Shot 0 is on the landing page already; 3 to 7 make the 8; 8 and 9 are left out.
    expect(kept).toEqual(["Shot 0", "Shot 3", "Shot 4", "Shot 5", "Shot 6", "Shot 7"]);
    expect(stream.lines.join("")).toContain(`The picture at ${H}/n/8.png was left out: the site has 8 pictures already, the most it may have.`);
    expect((await storedNames(siteId)).length).toBe(6);
  });

  it("copies nothing from private addresses unless the operator allows it", async () => {
    const guarded = createReposite({
      storage: createStorage(),
      config: { allowPrivateFetch: false, baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
      github: { apiUrl: github.url, webHosts: ["github.com"] },
    });
    try {
      const owner = (await guarded.accounts.findOrCreate("owner@example.com")).account.id;
      const siteId = (await guarded.projects.create(owner, { repohost_url: "github.com/acme/rocket-cli" })).id;
      const stream = job();
      const copied = await guarded.container.resolve(SiteImages).copyInto(owner, siteId, landing(`${H}/shot.png`, []), stream);
      expect(copied.hero.image).toBeUndefined();
      expect(stream.lines.join("")).toContain(`The picture at ${H}/shot.png was left out: 127.0.0.1 is not on the public internet.`);
      expect(await guarded.container.resolve(STORAGE).getKeys(`site-images:${siteId}:`)).toEqual([]);
    } finally {
      await guarded.close();
    }
  });

  async function generate(siteId: string, body: Record<string, unknown> = { mode: "website", pages: ["about"] }): Promise<string> {
    const started = await reposite.generation.generate(ownerId, siteId, body);
    let said = "";
    for (let id: string | null = started.job_id; id; ) {
      for await (const event of reposite.jobs.events(ownerId, id)) if (event.type === "delta") said += event.t;
      const ended = await reposite.jobs.get(ownerId, id);
      expect(ended.status, ended.error ?? "").toBe("done");
      id = ended.next_job_id;
    }
    return said;
  }

  it("a generation copies the README's pictures and logo; publishing serves the pictures its pages show", async () => {
    const siteId = await newSite();
    const said = await generate(siteId);
    expect(said).toContain(`The picture at ${H}/big.png was left out: it is larger than 2 MB.`);
    expect(said).not.toContain("shields.io");

    const pages = await reposite.pageVersions.currentPages(ownerId, siteId);
    const template = pages.find((page) => page.kind === "template")!;
    const path = `/_images/${nameOf(PNG)}.png`;
    expect(template.content).toMatchObject({ hero: { image: { src: path, alt: "The launch dashboard" } } });
    expect(JSON.stringify(pages.map((page) => page.content))).not.toContain(H);
    expect(template.html).toContain(`src="${path}" alt="The launch dashboard"`);
    const project = await reposite.projects.getOwned(ownerId, siteId);
    expect(project).toMatchObject({ logo_url: "", logo_image: `data:image/svg+xml;base64,${Buffer.from(SVG).toString("base64")}` });
    expect(template.html).toContain(project.logo_image);

    await reposite.publishing.publish(ownerId, siteId, {});
    const store = reposite.container.resolve(PublishedSiteStore);
    const site = (await store.getBySite(siteId))!;
    expect(site.files[path]).toMatchObject({ path, contentType: "image/png", encoding: "base64", body: PNG.toString("base64") });
    expect(Object.keys(site.files).filter((each) => each.startsWith("/_images/"))).toEqual([path]);
    expect(site.files["/"]!.body).toContain(`<img src="${path}" alt="The launch dashboard"`);
    expect(site.files["/"]!.body).not.toContain(H);
    expect(site.files["/"]!.body).toContain(project.logo_image);

    // A page published alone that shows no picture any more: the picture leaves the site.
    await reposite.pageVersions.add({ ownerId, siteId, kind: "template", name: "plain", html: "<!doctype html><title>Plain</title><p>Plain</p>", source: "custom", design: null });
    await reposite.publishing.publishPage(ownerId, siteId, { kind: "template" });
    expect(Object.keys((await store.getBySite(siteId))!.files).filter((each) => each.startsWith("/_images/"))).toEqual([]);
    // ... and comes back with a page that shows it.
    await reposite.pageVersions.makeCurrent(ownerId, siteId, { kind: "template", version_id: template.id });
    await reposite.publishing.publishPage(ownerId, siteId, { kind: "template" });
    expect((await store.getBySite(siteId))!.files[path]).toMatchObject({ contentType: "image/png", body: PNG.toString("base64") });

    // A purge removes the copied pictures with the rest.
    await reposite.projectRemoval.delete(ownerId, siteId, { purge: true });
    expect(await storedNames(siteId)).toEqual([]);
  });

  it("keeps a project's own logo_url over the README's logo", async () => {
    const siteId = await newSite();
    const own = `data:image/png;base64,${numbered(7).toString("base64")}`;
    await reposite.projects.update(ownerId, siteId, { logo_url: `${H}/n/7.png` });
    await generate(siteId, { mode: "landing" });
    expect(await reposite.projects.getOwned(ownerId, siteId)).toMatchObject({ logo_url: `${H}/n/7.png`, logo_image: own });
  });

  it("uses no README logo over the logo's 64 KB, and says so", async () => {
    const siteId = await newSite("big-logo");
    const said = await generate(siteId, { mode: "landing" });
    expect(said).toContain(`The README's logo at ${H}/big-logo.png could not be used: it is larger than 64 KB.`);
    expect(await reposite.projects.getOwned(ownerId, siteId)).toMatchObject({ logo_url: "", logo_image: "" });
  });
});
