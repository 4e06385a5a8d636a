import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage } from "unstorage";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createIndexNowNotifier,
  createReposite,
  DESIGNS,
  EVENTS,
  isValidSlug,
  plainPreviewPng,
  PublishedSiteStore,
  PublishingService,
  RESERVED_SLUGS,
  SEARCH_NOTIFIER,
  SITE_CHANGED_CHANNEL,
  slugCandidates,
  STORAGE,
  slugFromName,
  slugProblem,
  type CreateRepositeOptions,
  type PublishedSite,
  type Reposite,
} from "../src/index.js";

const README = "# Rocket CLI\n\nLaunch rockets from your terminal, safely.\n\n## Features\n\n- Countdown with abort\n- Works offline\n\n## Install\n\n```sh\nnpm install -g rocket-cli\n```\n\n## FAQ\n\n### Does it work offline?\n\nYes: the countdown runs without a network.\n";
const REPOS = [
  { owner: "acme", name: "rocket-cli", description: "Launch rockets from your terminal", topics: ["cli"], readme: README },
  { owner: "acme", name: "widget", description: "Widgets & gadgets", topics: [], readme: "# Widget\n\nSmall widgets." },
];

/** A clock that only moves when told. */
function testClock(start = "2026-05-01T10:00:00Z") {
  const clock = { time: Date.parse(start), now: () => new Date(clock.time), advance: (ms: number) => (clock.time += ms) };
  return clock;
}

interface Setup {
  reposite: Reposite;
  publishing: PublishingService;
  store: PublishedSiteStore;
  clock: ReturnType<typeof testClock>;
  ownerId: string;
  events: { slug: string }[];
  newProject(name?: string, repo?: string): Promise<string>;
  generate(siteId: string, plan?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

async function setUp(github: FakeGitHub, extra: Partial<CreateRepositeOptions> = {}): Promise<Setup> {
  const clock = testClock();
  const reposite = createReposite({
    storage: createStorage(),
    clock,
    config: { baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    ...extra,
  });
  const publishing = reposite.container.resolve(PublishingService);
  const store = reposite.container.resolve(PublishedSiteStore);
  const ownerId = (await reposite.accounts.findOrCreate(`owner-${Math.random()}@example.com`)).account.id;
  const events: { slug: string }[] = [];
  reposite.container.resolve(EVENTS).subscribe(SITE_CHANGED_CHANNEL, (event) => events.push(event as { slug: string }));
  return {
    reposite,
    publishing,
    store,
    clock,
    ownerId,
    events,
    async newProject(name, repo = "rocket-cli") {
      return (await reposite.projects.create(ownerId, { repohost_url: `github.com/acme/${repo}`, ...(name ? { name } : {}) })).id;
    },
    async generate(siteId, plan = { mode: "website", pages: ["about", "faq", "auth"] }) {
      const started = await reposite.generation.generate(ownerId, siteId, plan);
      for (let id: string | null = started.job_id; id; ) {
        let job = await reposite.jobs.get(ownerId, id);
        while (job.status === "running") {
          await new Promise((resolve) => setTimeout(resolve, 5));
          job = await reposite.jobs.get(ownerId, id);
        }
        expect(job.status).toBe("done");
        id = job.next_job_id;
      }
    },
    async close() {
      await publishing.idle();
      await reposite.close();
    },
  };
}

const text = (site: PublishedSite, path: string) => site.files[path]!.body;
const live = async (s: Setup, siteId: string) => (await s.store.getBySite(siteId))!;

describe("slug rules", () => {
  it.each([
    ["abc", null],
    ["rocket-cli", null],
    ["a1-b2-c3", null],
    ["123", null],
    ["a".repeat(60), null],
    ["a--b", null],
    ["ab", "invalid"],
    ["a".repeat(61), "invalid"],
    ["Rocket", "invalid"],
    ["rocket_cli", "invalid"],
    ["rocket.cli", "invalid"],
    ["rocket cli", "invalid"],
    ["über", "invalid"],
    ["-abc", "invalid"],
    ["abc-", "invalid"],
    ["xn--abc", "invalid"],
    ["ab--cd", "invalid"],
    ["", "invalid"],
    ["www", "reserved"],
    ["api", "reserved"],
    ["app", "reserved"],
    ["admin", "reserved"],
    ["mail", "reserved"],
    ["staging", "reserved"],
  ])("%j → %s", (slug, problem) => {
    expect(slugProblem(slug)).toBe(problem);
  });

  it("documents a reserved list that holds the service's own names, all of them valid slugs", () => {
    for (const name of ["www", "api", "app", "admin", "mail", "smtp", "ftp", "blog", "docs", "help", "support", "status", "static", "assets", "cdn", "auth", "login", "account", "billing", "dashboard", "root", "test", "staging", "dev"]) {
      expect(RESERVED_SLUGS.has(name), name).toBe(true);
    }
    for (const name of RESERVED_SLUGS) expect(isValidSlug(name), name).toBe(true);
  });

  it.each([
    ["Rocket CLI", "rocket-cli"],
    ["  Crème brûlée!! ", "creme-brulee"],
    ["a_b.c", "a-b-c"],
    ["X", "x-site"],
    ["日本語", "site"],
    ["--", "site"],
    ["A".repeat(80), "a".repeat(60)],
    [`${"word ".repeat(11)}end`, "word-word-word-word-word-word-word-word-word-word-word-end".slice(0, 60).replace(/-+$/, "")],
  ])("derives %j → %j", (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
    expect(isValidSlug(slugFromName(name))).toBe(true);
  });

  it("offers -2 … -9, then random suffixes, each valid, none reserved, none over 60 characters", () => {
    const tries = [...slugCandidates("rocket")];
    expect(tries.slice(0, 9)).toEqual(["rocket", "rocket-2", "rocket-3", "rocket-4", "rocket-5", "rocket-6", "rocket-7", "rocket-8", "rocket-9"]);
    expect(tries.slice(9)).toHaveLength(5);
    for (const each of tries.slice(9)) expect(each).toMatch(/^rocket-[a-z0-9]{6}$/);
    expect([...slugCandidates("api")][0]).toBe("api-2");
    for (const each of slugCandidates("a".repeat(60))) {
      expect(each.length).toBeLessThanOrEqual(60);
      expect(isValidSlug(each)).toBe(true);
    }
  });
});

describe("addresses", () => {
  let github: FakeGitHub;
  let s: Setup;
  beforeAll(async () => {
    github = await startFakeGitHub({ repos: REPOS });
    s = await setUp(github);
  });
  afterAll(async () => {
    await s.close();
    await github.close();
  });

  it("checks a slug: invalid, reserved, taken or available", async () => {
    const siteId = await s.newProject();
    await expect(s.publishing.checkSlug("ab")).resolves.toEqual({ available: false, reason: "invalid" });
    await expect(s.publishing.checkSlug(undefined)).resolves.toEqual({ available: false, reason: "invalid" });
    await expect(s.publishing.checkSlug("www")).resolves.toEqual({ available: false, reason: "reserved" });
    await expect(s.publishing.checkSlug("free-rocket")).resolves.toEqual({ available: true });
    await expect(s.publishing.setSlug(s.ownerId, siteId, { slug: "free-rocket" })).resolves.toEqual({
      slug: "free-rocket",
      url: "https://free-rocket.sites.example",
    });
    await expect(s.publishing.checkSlug("free-rocket")).resolves.toEqual({ available: false, reason: "taken" });
    const project = await s.reposite.projects.get(s.ownerId, siteId);
    expect(project).toMatchObject({ slug: "free-rocket", url: "https://free-rocket.sites.example" });
  });

  it("refuses invalid (422), reserved and taken (409) slugs", async () => {
    const mine = await s.newProject();
    const theirs = await s.newProject();
    await s.publishing.setSlug(s.ownerId, theirs, { slug: "their-rocket" });
    await expect(s.publishing.setSlug(s.ownerId, mine, { slug: "Bad Slug" })).rejects.toMatchObject({ status: 422, code: "invalid_slug" });
    await expect(s.publishing.setSlug(s.ownerId, mine, {})).rejects.toMatchObject({ status: 422, code: "invalid_request" });
    await expect(s.publishing.setSlug(s.ownerId, mine, { slug: "admin" })).rejects.toMatchObject({ status: 409, code: "slug_reserved" });
    await expect(s.publishing.setSlug(s.ownerId, mine, { slug: "their-rocket" })).rejects.toMatchObject({ status: 409, code: "slug_taken" });
    // Setting the slug a project already has is no change.
    await expect(s.publishing.setSlug(s.ownerId, theirs, { slug: "their-rocket" })).resolves.toMatchObject({ slug: "their-rocket" });
    await expect(s.publishing.setSlug("someone-else", mine, { slug: "other-slug" })).rejects.toMatchObject({ status: 404 });
  });

  it("gives a slug to exactly one of 20 projects asking for it at the same time", async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => s.newProject()));
    const results = await Promise.allSettled(ids.map((id) => s.publishing.setSlug(s.ownerId, id, { slug: "contested" })));
    const won = results.flatMap((result, i) => (result.status === "fulfilled" ? [ids[i]!] : []));
    expect(won).toHaveLength(1);
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toMatchObject({ status: 409, code: "slug_taken" });
    }
    await expect(s.store.holder("contested")).resolves.toBe(won[0]);
    const slugs = await Promise.all(ids.map(async (id) => (await s.reposite.projects.get(s.ownerId, id)).slug));
    expect(slugs.filter((slug) => slug === "contested")).toHaveLength(1);
    expect(slugs.filter((slug) => slug === null)).toHaveLength(19);
  });

  it("derives a missing slug from the project's name on ensureSlug: -2 when taken, another when reserved", async () => {
    const first = await s.newProject("Star Gazer!");
    const second = await s.newProject("Star  gazer");
    await expect(s.publishing.ensureSlug(s.ownerId, first)).resolves.toBe("star-gazer");
    await expect(s.publishing.ensureSlug(s.ownerId, second)).resolves.toBe("star-gazer-2");
    // Asked again, a project keeps its slug.
    await expect(s.publishing.ensureSlug(s.ownerId, first)).resolves.toBe("star-gazer");
    expect((await s.reposite.projects.get(s.ownerId, second)).slug).toBe("star-gazer-2");

    const reserved = await s.newProject("API");
    await expect(s.publishing.ensureSlug(s.ownerId, reserved)).resolves.toBe("api-2");
    // A name with nothing usable in an address falls back to the repository's name.
    const japanese = await s.newProject("日本語", "widget");
    await expect(s.publishing.ensureSlug(s.ownerId, japanese)).resolves.toBe("widget");

    // Once -2 … -9 are taken, a short random suffix.
    const ids = await Promise.all(Array.from({ length: 9 }, () => s.newProject("Busy Name")));
    const slugs: string[] = [];
    for (const id of ids) slugs.push(await s.publishing.ensureSlug(s.ownerId, id));
    expect(slugs.slice(0, 8)).toEqual(["busy-name", "busy-name-2", "busy-name-3", "busy-name-4", "busy-name-5", "busy-name-6", "busy-name-7", "busy-name-8"]);
    expect(slugs[8]).toBe("busy-name-9");
    const tenth = await s.newProject("Busy Name");
    await expect(s.publishing.ensureSlug(s.ownerId, tenth)).resolves.toMatch(/^busy-name-[a-z0-9]{6}$/);
  });

  it("takes over a claim left by a deleted project that has nothing live", async () => {
    const gone = await s.newProject();
    await s.publishing.setSlug(s.ownerId, gone, { slug: "left-over" });
    await s.reposite.projects.delete(s.ownerId, gone);
    await expect(s.publishing.checkSlug("left-over")).resolves.toEqual({ available: true });
    const next = await s.newProject();
    await expect(s.publishing.setSlug(s.ownerId, next, { slug: "left-over" })).resolves.toMatchObject({ slug: "left-over" });
  });
});

describe("publishing", () => {
  let github: FakeGitHub;
  let s: Setup;
  let siteId: string;
  beforeAll(async () => {
    github = await startFakeGitHub({ repos: REPOS });
    s = await setUp(github);
    siteId = await s.newProject("Rocket CLI");
    await s.generate(siteId, { mode: "website", pages: ["about", "faq", "auth"], community: true });
  });
  afterAll(async () => {
    await s.close();
    await github.close();
  });

  it("answers 409 nothing_to_publish for a project without pages, and 404 for someone else's", async () => {
    const empty = await s.newProject("Empty");
    await expect(s.publishing.publish(s.ownerId, empty, {})).rejects.toMatchObject({ status: 409, code: "nothing_to_publish" });
    expect((await s.reposite.projects.get(s.ownerId, empty)).slug).toBeNull();
    await expect(s.publishing.publish("acct_other", siteId, {})).rejects.toMatchObject({ status: 404 });
    await expect(s.publishing.publish(s.ownerId, siteId, { discourse: "yes" })).rejects.toMatchObject({ status: 422 });
    await expect(s.publishing.publishPage(s.ownerId, siteId, { kind: "about" })).rejects.toMatchObject({ status: 409, code: "not_published" });
  });

  it("publishes every current page at an address derived from the name, with every file of the snapshot", async () => {
    s.events.length = 0;
    const result = await s.publishing.publish(s.ownerId, siteId, {});
    expect(result).toEqual({ url: "https://rocket-cli.sites.example", pages: ["template", "about", "faq", "auth"], warnings: [] });
    expect((await s.reposite.projects.get(s.ownerId, siteId)).slug).toBe("rocket-cli");
    expect(s.events).toContainEqual({ slug: "rocket-cli" });

    const site = (await s.store.get("rocket-cli"))!;
    expect(site).toMatchObject({
      site_id: siteId,
      owner_id: s.ownerId,
      slug: "rocket-cli",
      url: "https://rocket-cli.sites.example",
      name: "Rocket CLI",
      pages: ["template", "about", "faq", "auth"],
      community: true,
      published_at: "2026-05-01T10:00:00Z",
      revision: 1,
    });
    const project = await s.reposite.projects.get(s.ownerId, siteId);
    expect(site.design).toBe(project.design);
    expect(Object.keys(site.files).sort()).toEqual(["/", "/404", "/about", "/auth", "/faq", "/favicon.ico", "/favicon.svg", "/og.png", "/robots.txt", "/sitemap.xml"]);
    const types = Object.fromEntries(Object.values(site.files).map((file) => [file.path, file.contentType]));
    expect(types).toEqual({
      "/": "text/html; charset=utf-8",
      "/about": "text/html; charset=utf-8",
      "/faq": "text/html; charset=utf-8",
      "/auth": "text/html; charset=utf-8",
      "/404": "text/html; charset=utf-8",
      "/sitemap.xml": "application/xml; charset=utf-8",
      "/robots.txt": "text/plain; charset=utf-8",
      "/og.png": "image/png",
      "/favicon.svg": "image/svg+xml",
      "/favicon.ico": "image/png",
    });
    for (const [path, file] of Object.entries(site.files)) {
      expect(file.path).toBe(path);
      const bytes = file.apart ? (await s.store.apartBody(site.site_id, file))! : Buffer.from(file.body, file.encoding === "base64" ? "base64" : "utf8");
      expect(file.etag).toBe(`"${createHash("sha256").update(bytes).digest("base64url").slice(0, 22)}"`);
      expect(file.lastModified).toBe("2026-05-01T10:00:00Z");
    }
    // The preview image is kept in a record of its own, so loading the site never reads it.
    expect(site.files["/og.png"]).toMatchObject({ body: "", apart: { size: expect.any(Number) } });

    // The pages are the current versions, as generated.
    const versions = await s.reposite.pageVersions.list(s.ownerId, siteId, "about");
    const about = await s.reposite.pageVersions.get(s.ownerId, versions.find((v) => v.current)!.id);
    expect(text(site, "/about")).toContain(about.html.slice(about.html.indexOf("<body")));
    expect(text(site, "/")).toContain("npm install -g rocket-cli");
    // The 404 page is drawn in the site's design.
    expect(text(site, "/404")).toContain("Page not found");
    expect(text(site, "/404")).toContain(`design-${site.design}`);
    expect(text(site, "/404")).toContain('<meta name="robots" content="noindex">');
  });

  it("writes a sitemap of absolute URLs and robots.txt with its Sitemap line", async () => {
    const site = await live(s, siteId);
    const sitemap = text(site, "/sitemap.xml");
    expect(sitemap).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]);
    // The sign-in page is for members, not for search results.
    expect(locs).toEqual(["https://rocket-cli.sites.example/", "https://rocket-cli.sites.example/about", "https://rocket-cli.sites.example/faq"]);
    expect(text(site, "/robots.txt")).toBe("User-agent: *\nAllow: /\n\nSitemap: https://rocket-cli.sites.example/sitemap.xml\n");
  });

  it("adds canonical, Open Graph and Twitter card tags to each page, escaped", async () => {
    const site = await live(s, siteId);
    const about = text(site, "/about");
    const head = about.slice(0, about.indexOf("</head>"));
    expect(head).toContain('<link rel="canonical" href="https://rocket-cli.sites.example/about">');
    expect(head).toContain('<meta property="og:url" content="https://rocket-cli.sites.example/about">');
    expect(head).toMatch(/<meta property="og:title" content="[^"]+">/);
    expect(head).toMatch(/<meta property="og:description" content="[^"]+">/);
    expect(head).toContain('<meta property="og:image" content="https://rocket-cli.sites.example/og.png">');
    expect(head).toContain('<meta property="og:image:width" content="1200">');
    expect(head).toContain('<meta property="og:image:height" content="630">');
    expect(head).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(head).toContain('<meta name="twitter:image" content="https://rocket-cli.sites.example/og.png">');
    expect(text(site, "/")).toContain('<link rel="canonical" href="https://rocket-cli.sites.example/">');
    expect(text(site, "/auth")).toContain('<meta name="robots" content="noindex">');
    expect(text(site, "/")).not.toContain('content="noindex"');
    // Only one <head>, and the tags are inside it.
    expect(about.match(/<head>/g)).toHaveLength(1);
  });

  it("writes a real 1200×630 PNG preview image", async () => {
    const site = await live(s, siteId);
    const png = (await s.store.apartBody(siteId, site.files["/og.png"]!))!;
    expect(png.length).toBe(site.files["/og.png"]!.apart!.size);
    expectPng(png);
    expectPng(plainPreviewPng({ design: DESIGNS[0]!, colorMode: "" }));
  });

  it("keeps one preview image record per project: a new image replaces the old one, a take-down removes it", async () => {
    const storage = s.reposite.container.resolve(STORAGE);
    const imageKeys = () => storage.getKeys(`published-files:${siteId}`);
    const before = await live(s, siteId);
    expect(await imageKeys()).toHaveLength(1);
    await s.reposite.projects.update(s.ownerId, siteId, { name: "Rocket Launcher" });
    await s.publishing.publish(s.ownerId, siteId, {});
    const after = await live(s, siteId);
    expect(after.files["/og.png"]!.etag).not.toBe(before.files["/og.png"]!.etag);
    expect(await imageKeys()).toHaveLength(1);
    expect(await s.store.apartBody(siteId, before.files["/og.png"]!)).toBeNull();
    expectPng((await s.store.apartBody(siteId, after.files["/og.png"]!))!);
    // Back to the name the other tests expect.
    await s.reposite.projects.update(s.ownerId, siteId, { name: "Rocket CLI" });
    await s.publishing.publish(s.ownerId, siteId, {});
    expect(await imageKeys()).toHaveLength(1);
  });

  it("keeps a page's lastmod when it did not change; a changed page gets the time it went live", async () => {
    const before = await live(s, siteId);
    s.clock.advance(3_600_000); // 11:00
    await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "about", name: "hand-written", html: "<!doctype html><html><head><title>About us</title></head><body><h1>About the rocket team</h1></body></html>" });
    s.clock.advance(3_600_000); // 12:00
    await s.publishing.publish(s.ownerId, siteId, {});
    const after = await live(s, siteId);
    expect(after.revision).toBe(before.revision + 1);
    expect(after.files["/"]!.lastModified).toBe("2026-05-01T10:00:00Z");
    expect(after.files["/faq"]!.lastModified).toBe("2026-05-01T10:00:00Z");
    expect(after.files["/about"]!.lastModified).toBe("2026-05-01T12:00:00Z");
    expect(after.files["/"]!.etag).toBe(before.files["/"]!.etag);
    expect(after.files["/og.png"]!.etag).toBe(before.files["/og.png"]!.etag);
    const sitemap = text(after, "/sitemap.xml");
    expect(sitemap).toContain("<loc>https://rocket-cli.sites.example/</loc>\n    <lastmod>2026-05-01T10:00:00Z</lastmod>");
    expect(sitemap).toContain("<loc>https://rocket-cli.sites.example/about</loc>\n    <lastmod>2026-05-01T12:00:00Z</lastmod>");
    // A custom page without a description gets the project's; its own title is used.
    expect(text(after, "/about")).toContain('<meta property="og:title" content="About us">');
  });

  it("adds the analytics tag only when ga_id is set, without changing lastmod", async () => {
    expect(text(await live(s, siteId), "/")).not.toContain("googletagmanager");
    await s.reposite.projects.update(s.ownerId, siteId, { ga_id: "G-ABC123XYZ" });
    expect(text(await live(s, siteId), "/")).not.toContain("googletagmanager");
    s.clock.advance(60_000);
    await s.publishing.publish(s.ownerId, siteId, {});
    const site = await live(s, siteId);
    for (const path of ["/", "/about", "/faq", "/auth", "/404"]) {
      expect(text(site, path)).toContain('<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ"></script>');
      expect(text(site, path)).toContain('gtag("config","G-ABC123XYZ")');
    }
    expect(site.files["/"]!.lastModified).toBe("2026-05-01T10:00:00Z");
    await s.reposite.projects.update(s.ownerId, siteId, { ga_id: "" });
    await s.publishing.publish(s.ownerId, siteId, {});
    expect(text(await live(s, siteId), "/")).not.toContain("googletagmanager");
  });

  it("shows changes to pages and to the design only after publishing again", async () => {
    const before = await live(s, siteId);
    await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "template", name: "mine", html: "<h1>Brand new landing</h1>" });
    const other = DESIGNS.find((d) => d.id !== before.design)!;
    await s.reposite.projects.update(s.ownerId, siteId, { design: other.id });
    const still = await live(s, siteId);
    expect(still.revision).toBe(before.revision);
    expect(text(still, "/")).not.toContain("Brand new landing");
    expect(still.design).toBe(before.design);

    await s.publishing.publish(s.ownerId, siteId, {});
    const after = await live(s, siteId);
    expect(text(after, "/")).toContain("<h1>Brand new landing</h1>");
    // A fragment gets a head for the tags.
    expect(text(after, "/")).toMatch(/^<head>\n<!-- reposite:published-head -->[\s\S]*<\/head>\n<h1>Brand new landing<\/h1>$/);
    // The 404 page and the preview take the new design.
    expect(after.design).toBe(other.id);
    expect(text(after, "/404")).toContain(`design-${other.id}`);
  });

  it("puts one changed page live with publish-page; the other pages stay as published", async () => {
    const before = await live(s, siteId);
    await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "faq", name: "new faq", html: "<html><head><title>FAQ</title></head><body>New answers</body></html>" });
    await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "about", name: "new about", html: "<html><head><title>About</title></head><body>Not yet</body></html>" });
    s.clock.advance(60_000);
    const result = await s.publishing.publishPage(s.ownerId, siteId, { kind: "faq" });
    expect(result).toEqual({ url: "https://rocket-cli.sites.example", pages: ["template", "about", "faq", "auth"], warnings: [] });
    const after = await live(s, siteId);
    expect(after.revision).toBe(before.revision + 1);
    expect(text(after, "/faq")).toContain("New answers");
    expect(after.files["/faq"]!.lastModified).toBe(new Date(s.clock.time).toISOString().replace(/\.\d{3}Z$/, "Z"));
    for (const path of ["/", "/about", "/auth", "/404", "/og.png", "/robots.txt"]) expect(after.files[path]).toEqual(before.files[path]);
    expect(text(after, "/sitemap.xml")).toContain(`<loc>https://rocket-cli.sites.example/faq</loc>\n    <lastmod>${after.files["/faq"]!.lastModified}</lastmod>`);
    await expect(s.publishing.publishPage(s.ownerId, siteId, { kind: "nope" })).rejects.toMatchObject({ status: 422 });
  });

  it("opens the forum by default when the plan has a community; discourse: false closes it", async () => {
    expect((await live(s, siteId)).community).toBe(true);
    await s.publishing.publish(s.ownerId, siteId, { discourse: false });
    expect((await live(s, siteId)).community).toBe(false);
    await s.publishing.publish(s.ownerId, siteId, { discourse: true });
    expect((await live(s, siteId)).community).toBe(true);
  });

  it("moves a published site on rename: the new address serves it with its URLs, the old one is freed", async () => {
    const before = await live(s, siteId);
    await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "about", name: "draft", html: "<p>Unpublished draft</p>" });
    s.events.length = 0;
    await expect(s.publishing.setSlug(s.ownerId, siteId, { slug: "moon-cli" })).resolves.toEqual({ slug: "moon-cli", url: "https://moon-cli.sites.example" });
    await expect(s.store.get("rocket-cli")).resolves.toBeNull();
    const moved = (await s.store.get("moon-cli"))!;
    expect(moved).toMatchObject({ slug: "moon-cli", url: "https://moon-cli.sites.example", site_id: siteId, revision: before.revision + 1 });
    expect(s.events).toEqual(expect.arrayContaining([{ slug: "rocket-cli" }, { slug: "moon-cli" }]));
    for (const path of ["/", "/about", "/faq", "/auth", "/404", "/sitemap.xml", "/robots.txt"]) {
      expect(text(moved, path), path).not.toContain("rocket-cli.sites.example");
    }
    expect(text(moved, "/about")).toContain('<link rel="canonical" href="https://moon-cli.sites.example/about">');
    expect(text(moved, "/about")).toContain('<meta property="og:image" content="https://moon-cli.sites.example/og.png">');
    expect(text(moved, "/robots.txt")).toContain("Sitemap: https://moon-cli.sites.example/sitemap.xml");
    // The preview image stays as published, in its own record.
    expect(moved.files["/og.png"]).toEqual(before.files["/og.png"]);
    expectPng((await s.store.apartBody(siteId, moved.files["/og.png"]!))!);
    expect(text(moved, "/sitemap.xml")).toContain("<loc>https://moon-cli.sites.example/about</loc>");
    // Content that did not change keeps its lastmod; the page bodies are as published, not the latest versions.
    expect(moved.files["/about"]!.lastModified).toBe(before.files["/about"]!.lastModified);
    expect(text(moved, "/about")).not.toContain("Unpublished draft");
    expect(text(moved, "/about")).toBe(text(before, "/about").replaceAll("rocket-cli.sites.example", "moon-cli.sites.example"));
    await expect(s.publishing.checkSlug("rocket-cli")).resolves.toEqual({ available: true });
    const other = await s.newProject("Other");
    await expect(s.publishing.setSlug(s.ownerId, other, { slug: "rocket-cli" })).resolves.toMatchObject({ slug: "rocket-cli" });
  });

  it("takes the site down on unpublish; with releaseSlug the address is freed too", async () => {
    s.events.length = 0;
    await expect(s.publishing.unpublish(s.ownerId, siteId)).resolves.toEqual({ unpublished: true });
    await expect(s.store.get("moon-cli")).resolves.toBeNull();
    await expect(s.store.getBySite(siteId)).resolves.toBeNull();
    await expect(s.reposite.container.resolve(STORAGE).getKeys(`published-files:${siteId}`)).resolves.toEqual([]);
    expect(s.events).toEqual([{ slug: "moon-cli" }]);
    await expect(s.publishing.checkSlug("moon-cli")).resolves.toEqual({ available: false, reason: "taken" });
    await expect(s.publishing.unpublish(s.ownerId, siteId)).resolves.toEqual({ unpublished: false });

    await s.publishing.publish(s.ownerId, siteId, {});
    expect((await live(s, siteId)).slug).toBe("moon-cli");
    await expect(s.publishing.unpublish(s.ownerId, siteId, { releaseSlug: true })).resolves.toEqual({ unpublished: true });
    await expect(s.publishing.checkSlug("moon-cli")).resolves.toEqual({ available: true });
  });
});

function expectPng(png: Buffer): void {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.subarray(12, 16).toString("ascii")).toBe("IHDR");
  expect(png.readUInt32BE(16)).toBe(1200);
  expect(png.readUInt32BE(20)).toBe(630);
}

/** A loopback IndexNow endpoint that records what it receives and answers `status`. */
async function startIndexNow(status: number): Promise<{ url: string; received: { path: string; type: string; body: unknown }[]; close(): Promise<void> }> {
  const received: { path: string; type: string; body: unknown }[] = [];
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    received.push({ path: request.url ?? "", type: request.headers["content-type"] ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
    response.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/indexnow`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("telling search engines through IndexNow", () => {
  const KEY = "0123456789abcdef0123456789abcdef";
  let github: FakeGitHub;
  beforeAll(async () => {
    github = await startFakeGitHub({ repos: REPOS });
  });
  afterAll(() => github.close());
  afterEach(() => vi.restoreAllMocks());

  it("serves the key file on each site host and sends the changed pages' URLs", async () => {
    const endpoint = await startIndexNow(202);
    const s = await setUp(github, {
      register: (container) => container.register(SEARCH_NOTIFIER, { useValue: createIndexNowNotifier({ key: KEY, endpoint: endpoint.url }) }),
    });
    try {
      const siteId = await s.newProject("Rocket CLI");
      await s.generate(siteId, { mode: "website", pages: ["about", "auth"] });
      await s.publishing.publish(s.ownerId, siteId, {});
      await s.publishing.idle();

      const site = await live(s, siteId);
      expect(site.files[`/${KEY}.txt`]).toMatchObject({ contentType: "text/plain; charset=utf-8", body: KEY });
      expect(endpoint.received).toEqual([
        {
          path: "/indexnow",
          type: "application/json; charset=utf-8",
          body: {
            host: "rocket-cli.sites.example",
            key: KEY,
            keyLocation: `https://rocket-cli.sites.example/${KEY}.txt`,
            urlList: ["https://rocket-cli.sites.example/", "https://rocket-cli.sites.example/about"],
          },
        },
      ]);

      // Nothing changed: nothing to tell.
      await s.publishing.publish(s.ownerId, siteId, {});
      await s.publishing.idle();
      expect(endpoint.received).toHaveLength(1);

      // One page changed: only its URL goes.
      await s.reposite.pageVersions.addCustom(s.ownerId, siteId, { kind: "about", name: "x", html: "<p>New about</p>" });
      s.clock.advance(1000);
      await s.publishing.publishPage(s.ownerId, siteId, { kind: "about" });
      await s.publishing.idle();
      expect(endpoint.received[1]!.body).toMatchObject({ urlList: ["https://rocket-cli.sites.example/about"] });

      // A renamed site is news on its new host.
      await s.publishing.setSlug(s.ownerId, siteId, { slug: "moon-cli" });
      await s.publishing.idle();
      expect(endpoint.received[2]!.body).toMatchObject({
        host: "moon-cli.sites.example",
        keyLocation: `https://moon-cli.sites.example/${KEY}.txt`,
        urlList: ["https://moon-cli.sites.example/", "https://moon-cli.sites.example/about"],
      });
    } finally {
      await s.close();
      await endpoint.close();
    }
  });

  it("publishes all the same when the endpoint fails, and logs it", async () => {
    const endpoint = await startIndexNow(500);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const s = await setUp(github, {
      register: (container) => container.register(SEARCH_NOTIFIER, { useValue: createIndexNowNotifier({ key: KEY, endpoint: endpoint.url }) }),
    });
    try {
      const siteId = await s.newProject("Rocket CLI");
      await s.generate(siteId, { mode: "landing" });
      await expect(s.publishing.publish(s.ownerId, siteId, {})).resolves.toEqual({ url: "https://rocket-cli.sites.example", pages: ["template"], warnings: [] });
      await s.publishing.idle();
      expect(endpoint.received).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("telling search engines about rocket-cli.sites.example failed"), expect.stringContaining("500"));
      expect(await s.store.get("rocket-cli")).not.toBeNull();
    } finally {
      await s.close();
      await endpoint.close();
    }
  });

  it("sends at most 10,000 URLs per request, and refuses a malformed key", async () => {
    const endpoint = await startIndexNow(200);
    try {
      const notifier = createIndexNowNotifier({ key: KEY, endpoint: endpoint.url });
      expect(notifier.keyFile).toEqual({ path: `/${KEY}.txt`, body: KEY });
      const urls = Array.from({ length: 10_001 }, (_, i) => `https://a.sites.example/p${i}`);
      await notifier.notify("a.sites.example", urls);
      expect(endpoint.received.map((r) => (r.body as { urlList: string[] }).urlList.length)).toEqual([10_000, 1]);
      expect(() => createIndexNowNotifier({ key: "short" })).toThrow(/8 to 128/);
      expect(() => createIndexNowNotifier({ key: "has space in it" })).toThrow();
      const failing = createIndexNowNotifier({ key: KEY, endpoint: "http://127.0.0.1:9/indexnow", timeout: 2000 });
      await expect(failing.notify("a.sites.example", ["https://a.sites.example/"])).rejects.toThrow(/could not be reached/);
    } finally {
      await endpoint.close();
    }
  });
});
