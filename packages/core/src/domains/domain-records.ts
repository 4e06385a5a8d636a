import type { DnsRecordType, DnsRecordView } from "@reposite/contract";
import { relativeName, type DomainName } from "./domain-name.js";

/** One DNS record the person adds at their DNS provider: the contract's shape. */
export type { DnsRecordType, DnsRecordView } from "@reposite/contract";

/** Where the ownership TXT record of a domain lives. */
export const OWNERSHIP_LABEL = "_reposite";
export const ownershipName = (domain: string) => `${OWNERSHIP_LABEL}.${domain}`;
export const ownershipValue = (token: string) => `reposite-verification=${token}`;

/** What the records point at: the project's address and the server's public addresses. */
export interface RecordTargets {
  /** `<slug>.<sites domain>`, without port. */
  siteHost: string;
  ipv4: string | null;
  ipv6: string | null;
}

/**
 * The records a domain needs. A subdomain gets one CNAME to the project's address: it follows the
 * project wherever the service moves it, and only the project's owner would point a name at that
 * address. A bare domain cannot have a CNAME (it sits beside the zone's SOA and NS records), so it
 * gets an A record (and AAAA when the server has IPv6) to the server, plus a TXT record with the
 * domain's token: an A record only says "this server", the TXT says "this project's owner".
 */
export function recordsFor(domain: DomainName, token: string, targets: RecordTargets): DnsRecordView[] {
  const record = (type: DnsRecordType, name: string, value: string, purpose: string): DnsRecordView => ({
    type,
    name,
    host: relativeName(name, domain.zone),
    value,
    purpose,
  });
  if (!domain.apex) {
    return [record("CNAME", domain.ascii, targets.siteHost, `Points ${domain.unicode} at your project's address.`)];
  }
  const records: DnsRecordView[] = [];
  if (targets.ipv4) records.push(record("A", domain.ascii, targets.ipv4, `Points ${domain.unicode} at this service (IPv4).`));
  if (targets.ipv6) records.push(record("AAAA", domain.ascii, targets.ipv6, `Points ${domain.unicode} at this service (IPv6).`));
  records.push(record("TXT", ownershipName(domain.ascii), ownershipValue(token), `Proves ${domain.unicode} is yours, for this project.`));
  return records;
}
