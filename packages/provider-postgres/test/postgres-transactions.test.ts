import {
  createReposite,
  DomainStore,
  isTransactionalDriver,
  PublishedSiteStore,
  PublishingService,
  PurchaseStore,
  STORAGE,
  type DomainRecord,
  type PurchaseRecord,
  type Reposite,
} from "@reposite/core";
import { postgresForTests, startFakeGitHub, startPostgres, type FakeGitHub } from "@reposite/test-support";
import { createStorage, type Driver } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPool, postgresStorageDriver } from "../src/index.js";

const postgres = postgresForTests();
const server = postgres.available ? await startPostgres() : null;

/**
 * The driver, except that a write of a key starting with `failOn.prefix` throws: a failure
 * injected between two writes core makes together. Transactions are kept (and their writes fail too).
 */
function failingWrites(driver: Driver, failOn: { prefix: string | null }): Driver {
  const wrap = (inner: Driver): Driver => {
    const wrapped: Driver & { transaction?: unknown } = {
      ...inner,
      async setItem(key, value, opts) {
        if (failOn.prefix && key.startsWith(failOn.prefix)) throw new Error(`injected failure writing ${key}`);
        await inner.setItem!(key, value, opts);
      },
    };
    if (isTransactionalDriver(inner)) wrapped.transaction = (work: (tx: Driver) => Promise<unknown>) => inner.transaction((tx) => work(wrap(tx)));
    return wrapped;
  };
  return wrap(driver);
}

const README = "# Rocket CLI\n\nLaunch rockets from your terminal.\n";

describe.skipIf(!server)("multi-record writes on PostgreSQL hold together", () => {
  let github: FakeGitHub;
  let reposite: Reposite;
  let onMemory: Reposite;
  const failOn = { prefix: null as string | null };
  const pool = openPool({ url: server?.url ?? "postgres://unavailable", max: 2 });
  const keys = async (prefix: string) =>
    (await pool.query<{ key: string }>("SELECT key FROM reposite_records WHERE key LIKE $1 ORDER BY key", [`${prefix}%`])).rows.map((row) => row.key);
  let ownerId: string;

  beforeAll(async () => {
    github = await startFakeGitHub({ repos: [{ owner: "acme", name: "rocket-cli", description: "Rockets", topics: [], readme: README }] });
    const make = (driver: Driver) =>
      createReposite({
        storage: createStorage({ driver: failingWrites(driver, failOn) }),
        config: { baseUrl: "https://reposite.example", sitesDomain: "sites.example" },
        github: { apiUrl: github.url, webHosts: ["github.com"] },
      });
    reposite = make(postgresStorageDriver({ url: server!.url }));
    // Today's behaviour, kept by drivers without transactions: the writes before the failure stay.
    onMemory = make(createStorage().getMount("").driver);
    ownerId = (await reposite.accounts.findOrCreate("ada@example.com")).account.id;
  });
  afterAll(async () => {
    await reposite?.close();
    await onMemory?.close();
    await pool.end();
    await github?.close();
    await server?.stop();
  });

  it("a token, its hash index and the account's list: a failure writing the list leaves no token", async () => {
    failOn.prefix = "account-tokens:";
    await expect(reposite.tokens.create(ownerId, { name: "ci", lifetime: "30d" })).rejects.toThrow("injected failure");
    expect(await keys("tokens:")).toEqual([]);
    expect(await keys("token-hashes:")).toEqual([]);

    const memoryOwner = (await onMemory.accounts.findOrCreate("ada@example.com")).account.id;
    await expect(onMemory.tokens.create(memoryOwner, { name: "ci", lifetime: "30d" })).rejects.toThrow("injected failure");
    const storage = onMemory.container.resolve(STORAGE);
    expect((await storage.getKeys("token-hashes")).length, "without transactions the hash index stays").toBe(1);

    failOn.prefix = null;
    const { secret } = await reposite.tokens.create(ownerId, { name: "ci", lifetime: "30d" });
    expect((await reposite.tokens.authenticate(secret)).account.id).toBe(ownerId);
    expect(await keys("token-hashes:")).toHaveLength(1);
  });

  it("a project and its owner's list: a failure writing the list leaves no project", async () => {
    failOn.prefix = "owner-projects:";
    await expect(reposite.projects.create(ownerId, { repohost_url: "github.com/acme/rocket-cli" })).rejects.toThrow("injected failure");
    expect(await keys("projects:")).toEqual([]);
    failOn.prefix = null;
  });

  it("a slug claim and the project's slug: a failure saving the project leaves the address free", async () => {
    const siteId = (await reposite.projects.create(ownerId, { repohost_url: "github.com/acme/rocket-cli", name: "Rocket" })).id;
    const publishing = reposite.container.resolve(PublishingService);
    failOn.prefix = "projects:";
    await expect(publishing.setSlug(ownerId, siteId, { slug: "launchpad" })).rejects.toThrow("injected failure");
    expect(await keys("slugs:launchpad")).toEqual([]);
    expect(await reposite.container.resolve(PublishedSiteStore).holder("launchpad")).toBeNull();
    failOn.prefix = null;
    await expect(publishing.setSlug(ownerId, siteId, { slug: "launchpad" })).resolves.toMatchObject({ slug: "launchpad" });
    expect(await reposite.container.resolve(PublishedSiteStore).holder("launchpad")).toBe(siteId);
    expect((await reposite.projects.getOwned(ownerId, siteId)).slug).toBe("launchpad");
  });

  it("a purchase and its activation: a failure listing it under its subscription leaves it pending", async () => {
    const purchases = reposite.container.resolve(PurchaseStore);
    const purchase = {
      id: "pur_transaction1",
      account_id: ownerId,
      site_id: "site_transaction1",
      session_id: "cs_transaction1",
      product: "memory",
      quantity: 1,
      status: "pending",
      customer_id: null,
      subscription_id: null,
      event_at: null,
      provider_status: null,
      created_at: "2026-05-01 10:00:00",
      updated_at: "2026-05-01 10:00:00",
    } as unknown as PurchaseRecord;
    failOn.prefix = "billing-session-purchases:";
    await expect(purchases.insert([purchase])).rejects.toThrow("injected failure");
    expect(await keys("billing-")).toEqual([]);
    failOn.prefix = null;
    await purchases.insert([purchase]);

    const activate = (record: PurchaseRecord): PurchaseRecord => ({ ...record, status: "active", subscription_id: "sub_transaction1" });
    failOn.prefix = "billing-subscription-purchases:";
    await expect(purchases.modify(purchase.id, activate)).rejects.toThrow("injected failure");
    expect((await purchases.get(purchase.id))?.status).toBe("pending");
    failOn.prefix = null;
    await purchases.modify(purchase.id, activate);
    expect((await purchases.bySubscription("sub_transaction1")).map((each) => each.status)).toEqual(["active"]);
  });

  it("a domain claim: a failure saving the verified record leaves the name unheld and the other claims standing", async () => {
    const domains = reposite.container.resolve(DomainStore);
    const record: DomainRecord = {
      site_id: "site_domain1",
      owner_id: ownerId,
      domain: "docs.rocket.example",
      token: "dom_transaction1",
      verified: true,
      verified_at: "2026-05-01 10:00:00",
      created_at: "2026-05-01 10:00:00",
      updated_at: "2026-05-01 10:00:00",
    };
    const holds = async () => true;
    expect(await domains.addClaim(record.domain, "site_domain1", holds)).toBe(true);
    expect(await domains.addClaim(record.domain, "site_domain2", holds)).toBe(true);
    const claimKeys = await keys("domain-claims:");
    failOn.prefix = "domains:";
    await expect(domains.take(record.domain, "site_domain1", holds, record)).rejects.toThrow("injected failure");
    expect(await keys("domain-names:")).toEqual([]);
    expect(await keys("domain-claims:")).toEqual(claimKeys);
    failOn.prefix = null;
    await expect(domains.take(record.domain, "site_domain1", holds, record)).resolves.toEqual(["site_domain2"]);
    expect((await domains.ofSite("site_domain1"))?.verified).toBe(true);
  });
});
