import { createStorage, type Storage } from "unstorage";
import { codeTestHost } from "@reposite/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { createReposite, type Reposite } from "../src/index.js";


const PAGE = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

const open: Reposite[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((reposite) => reposite.close()));
});

async function setUp() {
  const storage: Storage = createStorage();
  const reposite = createReposite({ storage, repoHosts: [codeTestHost], config: { baseUrl: "https://reposite.example", sitesDomain: "sites.example" } });
  open.push(reposite);
  const owner = (await reposite.accounts.findOrCreate("owner@example.com")).account.id;
  const stranger = (await reposite.accounts.findOrCreate("stranger@example.com")).account.id;

  /** A project with versions of two pages, published with its forum open, a member with a session, a thread and a reply. */
  async function livingSite(name: string, repo: string) {
    const siteId = (await reposite.projects.create(owner, { repohost_url: `https://code.test/acme/${repo}`, name })).id;
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "template", name: "first", html: PAGE(name) });
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "template", name: "second", html: PAGE(`${name}!`) });
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "about", name: "about", html: PAGE(`About ${name}`) });
    const { url } = await reposite.publishing.publish(owner, siteId, { discourse: true });
    const slug = new URL(url).hostname.split(".")[0]!;
    const site = (await reposite.siteCache.get(slug))!.site;
    const member = await reposite.members.register(siteId, { email: `ada@${repo}.example`, password: "analytical-engine" });
    const { secret } = await reposite.members.createSession(siteId, member.id);
    const thread = await reposite.forum.createThread(site, member, { title: "Hello", body: "First post" });
    await reposite.forum.reply(site, member, thread.id, { body: "A reply" });
    return { siteId, slug, secret };
  }

  /** Every key whose record names `siteId`, in its key or in its value. */
  async function traces(siteId: string): Promise<string[]> {
    const found: string[] = [];
    for (const key of await storage.getKeys()) {
      if (key.includes(siteId) || JSON.stringify(await storage.getItem(key)).includes(siteId)) found.push(key);
    }
    return found;
  }

  return { reposite, storage, owner, stranger, livingSite, traces };
}

describe("deleting a project", () => {
  it("without purge leaves the site up with its members and forum; only its owner can take it down later", async () => {
    const { reposite, owner, stranger, livingSite, traces } = await setUp();
    const { siteId, slug, secret } = await livingSite("Lumen", "lumen");

    await reposite.projectRemoval.delete(owner, siteId);
    await expect(reposite.projects.get(owner, siteId)).rejects.toMatchObject({ status: 404 });
    // The site still serves, its members still sign in, its forum still reads.
    const site = await reposite.siteCache.get(slug);
    expect(site?.site.site_id).toBe(siteId);
    expect(await reposite.members.findSession(siteId, secret)).not.toBeNull();
    expect(await reposite.forum.listThreads(site!.site)).toHaveLength(1);

    // Someone else cannot reach it, with or without purge: the same 404 as for a project that never was.
    await expect(reposite.projectRemoval.delete(stranger, siteId, { purge: true })).rejects.toMatchObject({ status: 404, message: "Project not found." });
    await expect(reposite.projectRemoval.delete(stranger, siteId)).rejects.toMatchObject({ status: 404, message: "Project not found." });
    expect((await reposite.siteCache.get(slug))?.site.site_id).toBe(siteId);
    // Its owner is told how to take it down.
    await expect(reposite.projectRemoval.delete(owner, siteId)).rejects.toMatchObject({ status: 404, message: expect.stringContaining("purge=1") });

    await reposite.projectRemoval.delete(owner, siteId, { purge: true });
    expect(await reposite.siteCache.get(slug)).toBeNull();
    await expect(reposite.publishing.checkSlug(slug)).resolves.toEqual({ available: true });
    expect(await traces(siteId)).toEqual([]);
    // Nothing is left to delete.
    await expect(reposite.projectRemoval.delete(owner, siteId, { purge: true })).rejects.toMatchObject({ status: 404 });
  });

  it("with purge removes everything keyed by the project: site, address, members, sessions, forum, page versions, preview image", async () => {
    const { reposite, owner, livingSite, traces } = await setUp();
    const { siteId, slug, secret } = await livingSite("Lumen", "lumen");
    const other = await livingSite("Orbit", "orbit");
    const otherKeys = await traces(other.siteId);
    const before = await traces(siteId);
    // What there was to remove: every kind of record a live site has.
    for (const prefix of ["projects", "page-versions", "page-history", "published-sites", "published-by-site", "published-files", "slugs", "members", "member-emails", "site-members", "member-sessions", "site-member-sessions", "forum-threads", "forum-replies", "forum-index"]) {
      expect(before.some((key) => key.startsWith(`${prefix}:`)), prefix).toBe(true);
    }

    await reposite.projectRemoval.delete(owner, siteId, { purge: true });
    expect(await traces(siteId)).toEqual([]);
    expect(await reposite.members.findSession(siteId, secret)).toBeNull();
    expect(await reposite.siteCache.get(slug)).toBeNull();
    await expect(reposite.projects.get(owner, siteId)).rejects.toMatchObject({ status: 404 });
    // The other project of the same owner is untouched.
    expect(await traces(other.siteId)).toEqual(otherKeys);
    expect((await reposite.siteCache.get(other.slug))?.site.site_id).toBe(other.siteId);
  });

  it("without purge and with nothing live, removes everything: there is no site to leave up", async () => {
    const { reposite, owner, traces } = await setUp();
    const siteId = (await reposite.projects.create(owner, { repohost_url: "https://code.test/acme/draft" })).id;
    await reposite.pageVersions.addCustom(owner, siteId, { kind: "template", name: "draft", html: PAGE("Draft") });
    await reposite.publishing.ensureSlug(owner, siteId);
    expect(await traces(siteId)).not.toEqual([]);

    await reposite.projectRemoval.delete(owner, siteId);
    expect(await traces(siteId)).toEqual([]);
    await expect(reposite.projectRemoval.delete(owner, siteId, { purge: true })).rejects.toMatchObject({ status: 404 });
  });

  it("refuses ids that cannot be projects, and other people's live projects, as not found", async () => {
    const { reposite, owner, stranger, livingSite } = await setUp();
    const { siteId, slug } = await livingSite("Lumen", "lumen");
    for (const id of ["..", "site_../x", "", "acct_1"]) await expect(reposite.projectRemoval.delete(owner, id, { purge: true })).rejects.toMatchObject({ status: 404 });
    await expect(reposite.projectRemoval.delete(stranger, siteId, { purge: true })).rejects.toMatchObject({ status: 404 });
    expect((await reposite.siteCache.get(slug))?.site.site_id).toBe(siteId);
  });
});
