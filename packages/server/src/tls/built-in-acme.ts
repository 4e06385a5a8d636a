import { readFile } from "node:fs/promises";
import { isIP } from "node:net";
import { CertificateService, CertificateStore, CLOCK, ExpiringRecords, DEFAULT_CERTIFICATE_SETTINGS, EVENTS, Leases, ReplicaIdentity, type RenewalTurn, HttpChallenges, STORAGE, type Clock, type EventBus, type RecordStorage, type Reposite } from "@reposite/core";
import acme from "acme-client";
import { createAcmeIssuer } from "./acme-issuer.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Built-in ACME (REPOSITE_ACME_*): where certificates come from and when they are renewed. */
export interface AcmeSettings {
  /** The CA's ACME directory. Default: Let's Encrypt production. */
  directoryUrl: string;
  /** The ACME account's contact (REPOSITE_ACME_EMAIL). */
  email?: string;
  /** A PEM file of CA certificates trusted for the directory's HTTPS besides the system's (a test CA: pebble's). */
  caFile?: string;
  /** Renew when fewer days than this remain (REPOSITE_ACME_RENEW_DAYS). Default 30. */
  renewBeforeDays?: number;
  /** How often certificates are looked at. Default 1 hour; tests shorten it. */
  checkIntervalMs?: number;
  /** How long a name waits after a failed order. Default 1 hour. */
  retryAfterMs?: number;
  /** Names that get a certificate besides verified custom domains and the service's own host (REPOSITE_ACME_HOSTNAMES). */
  hostnames?: string[];
}

export const LETS_ENCRYPT_DIRECTORY = acme.directory.letsencrypt.production;

/**
 * Published on the event bus with `{ domain }` whenever a certificate is stored or dropped: with a
 * shared bus every replica hears it, so the edges it feeds fetch a renewal whichever replica ordered it.
 */
export const CERTIFICATE_CHANGED_CHANNEL = "certificates:changed";

/** Container token of the names built-in ACME orders for besides verified custom domains (registered only while it is on). */
export const ACME_HOSTNAMES = Symbol.for("reposite.AcmeHostnames");

/**
 * Composes built-in ACME on a Reposite: its certificates (stored with the other records, keys
 * sealed) and the CA. `changed` hears each name whose certificate was loaded, stored or dropped
 * (the nginx edge writes its files from it).
 */
export async function createBuiltInAcme(reposite: Reposite, settings: AcmeSettings, changed?: (name: string) => void): Promise<CertificateService> {
  const caPem = settings.caFile ? await readCaFile(settings.caFile) : undefined;
  const stored = reposite.container.resolve(CertificateStore);
  const events = reposite.container.resolve<EventBus>(EVENTS);
  const store = heardStore(stored, (name) => changed?.(name), (domain) => events.publish(CERTIFICATE_CHANGED_CHANNEL, { domain }));
  const hostnames = [...new Set([...serviceHost(reposite.config.baseUrl), ...(settings.hostnames ?? [])])];
  reposite.container.register(ACME_HOSTNAMES, { useValue: hostnames });
  const issuer = createAcmeIssuer({
    directoryUrl: settings.directoryUrl,
    ...(settings.email ? { email: settings.email } : {}),
    ...(caPem ? { caPem } : {}),
    accountKey: () => store.accountKey(settings.directoryUrl, async () => (await acme.crypto.createPrivateEcdsaKey("P-256")).toString()),
  });
  // Challenges as records too: the CA's request may reach another replica (through an edge or a balancer).
  const challenges = new HttpChallenges(reposite.container.resolve<RecordStorage>(STORAGE), reposite.container.resolve(ExpiringRecords));
  return new CertificateService(store, reposite.domainTable, issuer, reposite.container.resolve<Clock>(CLOCK), {
    ...(settings.renewBeforeDays !== undefined ? { renewBeforeMs: settings.renewBeforeDays * DAY_MS } : {}),
    ...(settings.checkIntervalMs !== undefined ? { checkIntervalMs: settings.checkIntervalMs } : {}),
    ...(settings.retryAfterMs !== undefined ? { retryAfterMs: settings.retryAfterMs } : {}),
    hostnames,
    turn: renewalTurn(reposite, settings.checkIntervalMs ?? DEFAULT_CERTIFICATE_SETTINGS.checkIntervalMs),
  }, challenges);
}

/**
 * The store, telling `changed` of every name it loads, saves or deletes (after the service's own
 * await), and `published` of every name saved or deleted.
 */
function heardStore(store: CertificateStore, changed: (name: string) => void, published: (name: string) => void): CertificateStore {
  const heard: CertificateStore = Object.create(store);
  heard.all = async () => {
    const all = await store.all();
    for (const certificate of all) changed(certificate.domain);
    return all;
  };
  heard.save = async (certificate) => {
    await store.save(certificate);
    changed(certificate.domain);
    published(certificate.domain);
  };
  heard.delete = async (domain) => {
    await store.delete(domain);
    changed(domain);
    published(domain);
  };
  return heard;
}

/** The lease whose holder orders and renews certificates for every replica sharing the storage. */
const RENEWAL_LEASE = "certificate-renewals";

/**
 * Replicas on one database: one orders and renews for all, under a lease as the sweeps are; when
 * its holder dies another takes over within two check intervals (renewals start 30 days early).
 */
function renewalTurn(reposite: Reposite, checkIntervalMs: number): RenewalTurn {
  const leases = reposite.container.resolve(Leases);
  const replica = reposite.container.resolve(ReplicaIdentity);
  return (work) => leases.asLeader(RENEWAL_LEASE, replica.id, checkIntervalMs * 2 + 5_000, work);
}

/** The service's own host gets a certificate when its address is https and a CA could check it (a name, not an IP or localhost). */
function serviceHost(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const host = url.hostname.toLowerCase();
  if (url.protocol !== "https:" || isIP(host.replace(/^\[(.*)\]$/, "$1")) || host === "localhost" || !host.includes(".")) return [];
  return [host];
}

async function readCaFile(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, "utf8");
  } catch (error) {
    throw new Error(`[reposite] REPOSITE_ACME_CA_FILE names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) throw new Error(`[reposite] REPOSITE_ACME_CA_FILE names ${path}, which holds no PEM certificate.`);
  return pem;
}
