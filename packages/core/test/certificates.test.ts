import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createStorage } from "unstorage";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CertificateService,
  CertificateStore,
  createReposite,
  readIssued,
  STORAGE,
  type CertificateIssuer,
  type CertificateSettings,
  type HttpChallengeAnswers,
  type IssuedCertificate,
  type RecordStorage,
  type Reposite,
} from "../src/index.js";

const run = promisify(execFile);
const DAY_MS = 24 * 60 * 60 * 1000;
let workDir: string;

/** A self-signed certificate for `names` valid `days` from now, made with openssl (what a CA would send, minus the CA). */
async function selfSigned(names: string[], days = 90): Promise<IssuedCertificate> {
  const dir = await mkdtemp(join(workDir, "cert-"));
  await run("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", String(days),
    "-subj", `/CN=${names[0]}`, "-addext", `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`,
  ]);
  return { chainPem: await readFile(join(dir, "cert.pem"), "utf8"), keyPem: await readFile(join(dir, "key.pem"), "utf8") };
}

/** An issuer that answers a challenge like a CA's order would, then signs; records what it was asked. */
function fakeIssuer(options: { days?: number; fail?: (domain: string) => boolean } = {}) {
  const asked: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const issuer: CertificateIssuer & { asked: string[]; mostAtOnce: () => number } = {
    asked,
    mostAtOnce: () => mostAtOnce,
    async issue(domain: string, answers: HttpChallengeAnswers) {
      asked.push(domain);
      mostAtOnce = Math.max(mostAtOnce, ++running);
      try {
        answers.put(`token-${asked.length}`, `token-${asked.length}.thumbprint`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        answers.remove(`token-${asked.length}`);
        if (options.fail?.(domain)) throw new Error(`validation of ${domain} failed`);
        return await selfSigned([domain], options.days);
      } finally {
        running--;
      }
    },
  };
  return issuer;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "reposite-certificates-"));
});
afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

let reposite: Reposite;
let storage: RecordStorage;
let store: CertificateStore;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const services: CertificateService[] = [];

function service(issuer: CertificateIssuer, settings: Partial<CertificateSettings> = {}): CertificateService {
  // A long interval: these tests call check() themselves.
  const made = new CertificateService(store, reposite.domainTable, issuer, clock, { checkIntervalMs: 60_000, ...settings });
  services.push(made);
  return made;
}

beforeEach(() => {
  offsetMs = 0;
  reposite = createReposite({ storage: createStorage(), clock, secretKey: randomBytes(32).toString("base64") });
  storage = reposite.container.resolve<RecordStorage>(STORAGE);
  store = reposite.container.resolve(CertificateStore);
});
afterEach(async () => {
  for (const made of services.splice(0)) made.close();
  await reposite.close();
  vi.restoreAllMocks();
});

describe("CertificateStore", () => {
  it("stores the chain in clear and the key sealed, bound to its name", async () => {
    const certificate = readIssued("www.example.org", await selfSigned(["www.example.org"]), new Date());
    await store.save(certificate);
    const record = await storage.getItem<Record<string, string>>("certificates:www.example.org");
    expect(record).toMatchObject({ domain: "www.example.org", chain_pem: certificate.chainPem, serial: certificate.serial, expires_at: certificate.expiresAt });
    expect(JSON.stringify(record)).not.toContain("PRIVATE KEY");
    expect(await store.get("www.example.org")).toEqual(certificate);

    // A sealed key copied under another name does not open there: left out, said, ordered again.
    await storage.setItem("certificates:evil.example", { ...record, domain: "evil.example" });
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await store.all()).map((found) => found.domain)).toEqual(["www.example.org"]);
    expect(String(said.mock.calls[0]?.[0])).toContain("the stored certificate of evil.example does not open");

    await store.delete("www.example.org");
    expect(await store.get("www.example.org")).toBeNull();
  });

  it("makes the ACME account key once per directory and keeps it sealed", async () => {
    const make = vi.fn(async () => "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n");
    const first = await store.accountKey("https://acme.test/dir", make);
    expect(await store.accountKey("https://acme.test/dir", make)).toBe(first);
    expect(make).toHaveBeenCalledTimes(1);
    await store.accountKey("https://other-ca.test/dir", make);
    expect(make).toHaveBeenCalledTimes(2);
    const keys = await storage.getKeys("acme-accounts:");
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(JSON.stringify(await storage.getItem(key))).not.toContain("PRIVATE KEY");
  });
});

describe("readIssued", () => {
  it("refuses a certificate for another name or another key", async () => {
    const issued = await selfSigned(["a.example"]);
    expect(() => readIssued("b.example", issued, new Date())).toThrow(/not for b\.example/);
    const other = await selfSigned(["a.example"]);
    expect(() => readIssued("a.example", { chainPem: issued.chainPem, keyPem: other.keyPem }, new Date())).toThrow(/does not match its key/);
    const read = readIssued("a.example", issued, new Date());
    expect(Date.parse(read.expiresAt) - Date.now()).toBeGreaterThan(89 * DAY_MS);
  });
});

describe("CertificateService", () => {
  const entry = (domain: string, verified = true) => ({ domain, siteId: `site-${domain}`, slug: domain.split(".")[0]!, verified });

  it("orders a certificate when a domain is verified, never for an unverified one, and serves it for that name only", async () => {
    const issuer = fakeIssuer();
    const certificates = service(issuer);
    await certificates.start();
    reposite.domainTable.set(entry("pending.example", false));
    await certificates.check();
    expect(issuer.asked).toEqual([]);

    reposite.domainTable.set(entry("www.shop.example"));
    await certificates.check();
    expect(issuer.asked).toEqual(["www.shop.example"]);
    expect(certificates.forName("www.shop.example")?.domain).toBe("www.shop.example");
    // SNI names arrive in any case, with or without the root's dot.
    expect(certificates.forName("WWW.Shop.Example.")?.domain).toBe("www.shop.example");
    expect(certificates.forName("pending.example")).toBeUndefined();
    expect((await store.get("www.shop.example"))?.serial).toBe(certificates.forName("www.shop.example")?.serial);
  });

  it("serves stored certificates at start without ordering, and renews only when fewer than renewBefore remain", async () => {
    reposite.domainTable.set(entry("www.shop.example"));
    await store.save(readIssued("www.shop.example", await selfSigned(["www.shop.example"], 90), clock.now()));
    const issuer = fakeIssuer();
    const certificates = service(issuer);
    await certificates.start();
    await certificates.check();
    const stored = certificates.forName("www.shop.example")!;
    expect(issuer.asked).toEqual([]);

    offsetMs = 59 * DAY_MS; // 31 days left
    await certificates.check();
    expect(issuer.asked).toEqual([]);

    offsetMs = 61 * DAY_MS; // 29 days left
    await certificates.check();
    expect(issuer.asked).toEqual(["www.shop.example"]);
    const renewed = certificates.forName("www.shop.example")!;
    expect(renewed.serial).not.toBe(stored.serial);
    expect((await store.get("www.shop.example"))?.serial).toBe(renewed.serial);
  });

  it("keeps serving the old certificate when a renewal fails, and tries again only after retryAfter", async () => {
    reposite.domainTable.set(entry("www.shop.example"));
    await store.save(readIssued("www.shop.example", await selfSigned(["www.shop.example"], 10), clock.now()));
    let failing = true;
    const issuer = fakeIssuer({ fail: () => failing });
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    const certificates = service(issuer, { retryAfterMs: 60 * 60 * 1000 });
    await certificates.start();
    await certificates.check();
    expect(issuer.asked).toEqual(["www.shop.example"]);
    expect(String(said.mock.calls[0]?.[0])).toContain("ordering a certificate for www.shop.example failed (next try in 60 min)");
    expect(certificates.forName("www.shop.example")).toBeDefined();

    offsetMs = 30 * 60 * 1000;
    await certificates.check();
    // Verifying again does not bypass the wait either.
    reposite.domainTable.set(entry("www.shop.example"));
    await certificates.check();
    expect(issuer.asked).toHaveLength(1);

    failing = false;
    offsetMs = 61 * 60 * 1000;
    await certificates.check();
    expect(issuer.asked).toHaveLength(2);
    expect(Date.parse(certificates.forName("www.shop.example")!.expiresAt)).toBeGreaterThan(Date.now() + 80 * DAY_MS);
  });

  it("orders one certificate at a time, once per name, and certifies the operator's own hostnames without a domain entry", async () => {
    const issuer = fakeIssuer();
    const certificates = service(issuer, { hostnames: ["Reposite.Example"] });
    await certificates.start();
    for (const name of ["a.example", "b.example", "c.example"]) reposite.domainTable.set({ ...entry(name), siteId: name });
    reposite.domainTable.set({ ...entry("a.example"), siteId: "a.example" });
    await certificates.check();
    expect([...issuer.asked].sort()).toEqual(["a.example", "b.example", "c.example", "reposite.example"]);
    expect(issuer.mostAtOnce()).toBe(1);
    expect(certificates.forName("reposite.example")).toBeDefined();
  });

  it("forgets a removed or unverified domain's certificate (memory and storage); one removed mid-order is not kept", async () => {
    const issuer = fakeIssuer();
    const certificates = service(issuer);
    await certificates.start();
    reposite.domainTable.set(entry("www.shop.example"));
    await certificates.check();
    reposite.domainTable.deleteSite("site-www.shop.example");
    expect(certificates.forName("www.shop.example")).toBeUndefined();
    await expect.poll(() => store.get("www.shop.example")).toBeNull();

    reposite.domainTable.set(entry("www.shop.example"));
    await certificates.check();
    reposite.domainTable.set(entry("www.shop.example", false));
    await expect.poll(() => store.get("www.shop.example")).toBeNull();

    // Removed before its turn: the CA is not asked.
    reposite.domainTable.set(entry("early.example"));
    reposite.domainTable.deleteSite("site-early.example");
    await certificates.check();
    expect(issuer.asked).not.toContain("early.example");
  });

  it("throws away a certificate whose domain was removed while the CA worked", async () => {
    const issuer = fakeIssuer();
    const removing: CertificateIssuer = {
      async issue(domain, answers) {
        const issued = await issuer.issue(domain, answers);
        reposite.domainTable.deleteSite(`site-${domain}`);
        return issued;
      },
    };
    const certificates = service(removing);
    await certificates.start();
    reposite.domainTable.set(entry("late.example"));
    await certificates.check();
    expect(issuer.asked).toEqual(["late.example"]);
    expect(await store.get("late.example")).toBeNull();
    expect(certificates.forName("late.example")).toBeUndefined();
  });

  it("renews on its own timer, which does not keep the process alive", async () => {
    reposite.domainTable.set(entry("www.shop.example"));
    await store.save(readIssued("www.shop.example", await selfSigned(["www.shop.example"], 90), clock.now()));
    const stored = (await store.get("www.shop.example"))!;
    const issuer = fakeIssuer();
    const certificates = service(issuer, { checkIntervalMs: 20 });
    await certificates.start();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(issuer.asked).toEqual([]);
    offsetMs = 61 * DAY_MS;
    await expect.poll(() => issuer.asked.length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => certificates.forName("www.shop.example")!.serial).not.toBe(stored.serial);
    const timer = (certificates as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    certificates.close();
    const asked = issuer.asked.length;
    offsetMs = 100 * DAY_MS;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(issuer.asked).toHaveLength(asked);
  });
});
