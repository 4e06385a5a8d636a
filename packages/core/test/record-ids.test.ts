import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { createStorage, defineDriver } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReposite, isWellFormedId, randomIds, RepositeError, type IdPrefix, type Reposite } from "../src/index.js";

/** Strings people (and scanners) send where an id goes. None of them is an id. */
const BAD_IDS = [
  "",
  ".",
  "..",
  "../..",
  "..%2F..",
  "%2e%2e",
  "site_..",
  "site_a/../b",
  "site_a%2Fb",
  "site_a\u0000",
  "\u0000",
  "site_a:b",
  "site_a?b",
  "site_a.b",
  "site_a b",
  "site_é",
  `site_${"a".repeat(101)}`,
];

describe("isWellFormedId", () => {
  const prefixes: IdPrefix[] = ["acct", "job", "login", "member", "reply", "site", "thread", "tok", "ver", "verify"];

  it("accepts every id the default generator makes, for every type", () => {
    for (const prefix of prefixes) {
      for (let i = 0; i < 200; i++) expect(isWellFormedId(randomIds.newId(prefix), prefix)).toBe(true);
    }
  });

  it("accepts ids of other generators that keep to the shape (prefix, _, letters, digits, _ or -)", () => {
    expect(isWellFormedId("job_1", "job")).toBe(true);
    expect(isWellFormedId("site_0b6Ff1e2-9c4d_x", "site")).toBe(true);
  });

  it.each(BAD_IDS)("refuses %j", (bad) => {
    expect(isWellFormedId(bad, "site")).toBe(false);
  });

  it("refuses an id of another type and anything that is not a string", () => {
    expect(isWellFormedId(randomIds.newId("tok"), "site")).toBe(false);
    expect(isWellFormedId("site", "site")).toBe(false);
    expect(isWellFormedId("site_", "site")).toBe(false);
    for (const value of [undefined, null, 42, {}, ["site_abc"]]) expect(isWellFormedId(value, "site")).toBe(false);
  });
});

/**
 * A storage driver that throws on any key with something else than letters, digits, `_` and `-`
 * between its colons, as the old fs driver did on `..`: a service that builds a key from a
 * malformed id fails the test with a driver error instead of answering 404 or 422.
 */
const strictDriver = defineDriver(() => {
  const inner = memoryDriver();
  const check = (key: string) => {
    if (!/^[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+)*$/.test(key)) throw new Error(`[strict driver] a malformed key reached storage: ${JSON.stringify(key)}`);
  };
  return {
    ...inner,
    name: "strict",
    hasItem: (key, options) => (check(key), inner.hasItem(key, options)),
    getItem: (key, options) => (check(key), inner.getItem(key, options)),
    setItem: (key, value, options) => (check(key), inner.setItem!(key, value, options)),
    removeItem: (key, options) => (check(key), inner.removeItem!(key, options)),
  };
});

describe("services refuse malformed ids before any storage key is made", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let ownerId: string;
  let siteId: string;
  const forumSite = () => ({ site_id: siteId, community: true });

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "widget", description: "Widgets", topics: [], readme: "# Widget" }] });
    reposite = createReposite({
      storage: createStorage({ driver: strictDriver({}) }),
      github: { apiUrl: github.url, webHosts: ["github.com"] },
    });
    ownerId = (await reposite.accounts.findOrCreate("ada@example.com")).account.id;
    siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/widget" })).id;
  });
  afterAll(async () => {
    await reposite.close();
    await github.close();
  });

  /** The call fails with the service's own error (never the driver's), of this status and code. */
  async function expectRefusal(call: () => Promise<unknown>, status: number, code?: string) {
    const error = await call().then(
      () => new Error("the call succeeded"),
      (caught: unknown) => caught,
    );
    expect(RepositeError.isInstance(error) ? { status: error.status, code: error.code } : String(error)).toEqual({ status, code });
  }

  it.each(BAD_IDS)("answers %j in a path as 404, the same as a missing record", async (bad) => {
    const account = (await reposite.accounts.findOrCreate("ada@example.com")).account;
    await expectRefusal(() => reposite.projects.get(ownerId, bad), 404);
    await expectRefusal(() => reposite.projects.update(ownerId, bad, { name: "x" }), 404);
    await expectRefusal(() => reposite.projects.delete(ownerId, bad), 404);
    await expectRefusal(() => reposite.pageVersions.list(ownerId, bad), 404);
    await expectRefusal(() => reposite.pageVersions.get(ownerId, bad), 404);
    await expectRefusal(() => reposite.pageVersions.makeCurrent(ownerId, bad, { kind: "template", version_id: "ver_1" }), 404);
    await expectRefusal(() => reposite.tokens.revoke(ownerId, bad), 404);
    await expectRefusal(() => reposite.jobs.get(ownerId, bad), 404);
    await expectRefusal(() => reposite.jobs.cancel(ownerId, bad), 404);
    await expectRefusal(() => reposite.jobs.events(ownerId, bad).next(), 404);
    await expectRefusal(() => reposite.agentLogin.page(bad, null), 404, "not_found");
    await expectRefusal(() => reposite.agentLogin.approve(bad, account), 404, "not_found");
    await expectRefusal(() => reposite.agentLogin.decline(bad, account), 404, "not_found");
    await expectRefusal(() => reposite.members.list(ownerId, bad), 404);
    await expectRefusal(() => reposite.members.createSession(siteId, bad), 404, "member_not_found");
    await expect(reposite.members.get(siteId, bad)).resolves.toBeNull();
    await expect(reposite.members.get(bad, "member_abc")).resolves.toBeNull();
    await expectRefusal(() => reposite.forum.getThread(forumSite(), bad), 404, "thread_not_found");
    await expectRefusal(() => reposite.publishing.setSlug(ownerId, bad, { slug: "widget-site" }), 404);
    await expectRefusal(() => reposite.publishing.publish(ownerId, bad, {}), 404);
    await expectRefusal(() => reposite.publishing.unpublish(ownerId, bad), 404);
    await expectRefusal(() => reposite.generation.generate(ownerId, bad, {}), 404);
    await expectRefusal(() => reposite.repoCheck.check(ownerId, bad), 404);
  });

  it.each(BAD_IDS)("answers %j in a body as 422 invalid_request naming the field", async (bad) => {
    await expectRefusal(() => reposite.agentLogin.exchange({ request_id: bad, code: "ABCD-EFGH" }), 422, "invalid_request");
    await expect(reposite.agentLogin.exchange({ request_id: bad, code: "ABCD-EFGH" })).rejects.toMatchObject({ details: { field: "request_id" } });
    await expectRefusal(() => reposite.pageVersions.makeCurrent(ownerId, siteId, { kind: "template", version_id: bad }), 422, "invalid_request");
    await expect(reposite.pageVersions.makeCurrent(ownerId, siteId, { kind: "template", version_id: bad })).rejects.toMatchObject({
      details: { field: "version_id" },
    });
  });

  it("still answers well-formed ids that are unknown as before", async () => {
    await expectRefusal(() => reposite.projects.get(ownerId, "site_unknown"), 404);
    await expectRefusal(() => reposite.pageVersions.makeCurrent(ownerId, siteId, { kind: "template", version_id: "ver_unknown" }), 404);
    await expectRefusal(() => reposite.agentLogin.exchange({ request_id: "login_unknown", code: "ABCD-EFGH" }), 410, "expired");
    expect((await reposite.projects.get(ownerId, siteId)).id).toBe(siteId);
  });
});
