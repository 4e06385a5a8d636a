import { createStorage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createInProcessEvents, createReposite, EVENTS, GenerationPlanStore, ProjectCache, ProjectStore, type ProjectRecord, type Reposite } from "../src/index.js";

const READS = ["getItem", "getItems", "getItemRaw", "hasItem", "getKeys"] as const;

function project(id: string, changes: Partial<ProjectRecord> = {}): ProjectRecord {
  return {
    id,
    owner_id: "acct_owner",
    created_at: "2026-03-01T00:00:00Z",
    updated_at: "2026-03-01T00:00:00Z",
    repository: { host: "github", owner: "acme", name: "widget", url: "https://github.com/acme/widget", private: false, default_branch: "main", description: "", topics: [] },
    slug: "widget",
    name: "widget",
    description: "",
    ga_id: "",
    design: "console",
    color_mode: "",
    logo_url: "",
    logo_image: "",
    auth_redirect_to_app: false,
    visits: 0,
    ...changes,
  };
}

describe("projects in memory for site hosts (ProjectCache)", () => {
  const open: Reposite[] = [];
  afterEach(async () => {
    for (const reposite of open.splice(0)) await reposite.close();
    vi.restoreAllMocks();
  });

  function rig(events = createInProcessEvents(), storage = createStorage()) {
    const reposite = createReposite({ storage, repoHosts: [], events });
    open.push(reposite);
    const spies = READS.map((method) => vi.spyOn(storage, method));
    return {
      reposite,
      store: reposite.container.resolve(ProjectStore),
      cache: reposite.container.resolve(ProjectCache),
      reads: () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0),
      resetReads: () => spies.forEach((spy) => spy.mockClear()),
    };
  }

  it("reads a project once, then answers the gate and the page frame from memory", async () => {
    const r = rig();
    await r.store.insert(project("site_one", { auth_redirect_to_app: true, logo_image: "data:image/png;base64,AAAA", color_mode: "Dark mode" }));
    await r.reposite.container.resolve(GenerationPlanStore).set("site_one", { mode: "saas", pages: [], community: false });
    r.cache.invalidate("site_one");
    expect(r.cache.peek("site_one")).toBeUndefined();
    r.resetReads();
    const first = await r.cache.get("site_one");
    // The project and its plan (generation's record: the type).
    expect(r.reads()).toBe(2);
    expect(first).toEqual({
      id: "site_one",
      owner_id: "acct_owner",
      auth_redirect_to_app: true,
      design: "console",
      color_mode: "Dark mode",
      logo: "data:image/png;base64,AAAA",
      type: "saas",
      repository_url: "https://github.com/acme/widget",
    });
    r.resetReads();
    for (let i = 0; i < 50; i++) expect(r.cache.peek("site_one")?.auth_redirect_to_app).toBe(true);
    await Promise.all(Array.from({ length: 10 }, () => r.cache.get("site_one")));
    expect(r.reads()).toBe(0);
  });

  it("follows every write of the record: a change of the gate is seen by the next request", async () => {
    const r = rig();
    await r.store.insert(project("site_one"));
    expect((await r.cache.get("site_one"))?.auth_redirect_to_app).toBe(false);
    await r.store.modify("site_one", (record) => ({ ...record, auth_redirect_to_app: true }));
    expect(r.cache.peek("site_one")).toBeUndefined();
    expect((await r.cache.get("site_one"))?.auth_redirect_to_app).toBe(true);

    const record = (await r.store.get("site_one"))!;
    await r.store.remove(record);
    expect(r.cache.peek("site_one")).toBeUndefined();
    expect(await r.cache.get("site_one")).toBeNull();
    expect(r.cache.peek("site_one")).toBeNull();
  });

  it("follows a change made by another replica through the shared events port", async () => {
    const storage = createStorage();
    const events = createInProcessEvents();
    const a = rig(events, storage);
    const b = rig(events, storage);
    await a.store.insert(project("site_one"));
    expect((await b.cache.get("site_one"))?.auth_redirect_to_app).toBe(false);
    await a.store.modify("site_one", (record) => ({ ...record, auth_redirect_to_app: true }));
    expect((await b.cache.get("site_one"))?.auth_redirect_to_app).toBe(true);
  });

  it("keeps no answer read while the project changed", async () => {
    const r = rig();
    await r.store.insert(project("site_one"));
    const original = r.store.get.bind(r.store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(r.store, "get").mockImplementationOnce(async (id) => {
      const answer = await original(id);
      await gate;
      return answer;
    });
    const pending = r.cache.get("site_one");
    await new Promise((resolve) => setTimeout(resolve, 10));
    await r.store.modify("site_one", (record) => ({ ...record, auth_redirect_to_app: true }));
    release();
    expect((await pending)?.auth_redirect_to_app).toBe(false);
    expect(r.cache.peek("site_one")).toBeUndefined();
    expect((await r.cache.get("site_one"))?.auth_redirect_to_app).toBe(true);
  });

  it("stays within its byte budget, dropping the least recently asked-for first", async () => {
    const r = rig();
    const logo = `data:image/png;base64,${"A".repeat(20_000)}`;
    for (const id of ["site_a", "site_b", "site_c"]) await r.store.insert(project(id, { logo_image: logo }));
    const small = new ProjectCache(r.store, r.reposite.container.resolve(GenerationPlanStore), r.reposite.container.resolve(EVENTS), { maxBytes: 45_000 });
    await small.get("site_a");
    await small.get("site_b");
    small.peek("site_a"); // a is now the most recently asked-for
    await small.get("site_c");
    expect(small.peek("site_b")).toBeUndefined();
    expect(small.peek("site_a")?.logo).toBe(logo);
    expect(small.peek("site_c")?.logo).toBe(logo);
    expect(small.stats().bytes).toBeLessThanOrEqual(45_000);
    small.close();
  });

  it("answers a malformed id as no project, without a storage read", async () => {
    const r = rig();
    r.resetReads();
    expect(await r.cache.get("../accounts")).toBeNull();
    expect(r.reads()).toBe(0);
  });
});
