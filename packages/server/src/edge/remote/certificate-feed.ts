import { CertificateStore, EVENTS, type Certificate, type EventBus, type Reposite } from "@reposite/core";
import { ACME_HOSTNAMES, CERTIFICATE_CHANGED_CHANNEL } from "../../tls/built-in-acme.js";

/** Built-in ACME's certificates as the edge feed lists them: by name, with their serial as version. */
export interface CertificateFeed {
  /** Names with a certificate to serve now, sorted. */
  list(): { name: string; version: string }[];
  /** The certificate of a listed name, key open (read from the records, so any replica's renewal is the one given); null otherwise. */
  get(name: string): Promise<Certificate | null>;
  close(): void;
}

/**
 * Follows the stored certificates (records every replica shares) for the edge feed. Only the
 * names built-in ACME serves are listed: a verified custom domain's, or one of its own hostnames;
 * a removed domain's certificate is gone from the list at once, before its record is deleted.
 * Without built-in ACME the list is empty. `changed` hears every change of the list.
 */
export async function startCertificateFeed(reposite: Reposite, changed: () => void): Promise<CertificateFeed> {
  const acmeOn = reposite.container.isRegistered(ACME_HOSTNAMES, true);
  const hostnames = new Set(acmeOn ? reposite.container.resolve<string[]>(ACME_HOSTNAMES) : []);
  const store = reposite.container.resolve(CertificateStore);
  /** Serials of the stored certificates, by name (no key is kept here). */
  const serials = new Map<string, string>();
  const wanted = (name: string) => acmeOn && (hostnames.has(name) || reposite.domainTable.isVerified(name));
  let listed = "";
  const list = () =>
    [...serials]
      .filter(([name]) => wanted(name))
      .map(([name, version]) => ({ name, version }))
      .sort((a, b) => a.name.localeCompare(b.name));
  const check = () => {
    const now = JSON.stringify(list());
    if (now !== listed) (listed = now, changed());
  };
  const read = async (name: string) => {
    const certificate = await store.get(name).catch((error: unknown) => {
      console.error(`[reposite] [edge feed] reading the certificate of ${name} failed; edges keep the one they have: ${(error as Error).message}`);
      return undefined;
    });
    if (certificate === undefined) return;
    if (certificate) serials.set(name, certificate.serial);
    else serials.delete(name);
    check();
  };

  const stops = acmeOn
    ? [
        reposite.container.resolve<EventBus>(EVENTS).subscribe(CERTIFICATE_CHANGED_CHANNEL, (event) => {
          const name = (event as { domain?: unknown } | null)?.domain;
          if (typeof name === "string") void read(name);
        }),
        // A domain verified (its stored certificate listed again) or removed (no longer listed).
        reposite.domainTable.onChange(check),
      ]
    : [];
  if (acmeOn) for (const certificate of await store.all()) serials.set(certificate.domain, certificate.serial);
  listed = JSON.stringify(list());

  return {
    list,
    async get(name) {
      if (!wanted(name)) return null;
      const certificate = await store.get(name);
      return certificate && certificate.domain === name ? certificate : null;
    },
    close() {
      for (const stop of stops) stop();
    },
  };
}
