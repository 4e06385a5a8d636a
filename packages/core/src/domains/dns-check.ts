import type { DnsCheck, DnsCheckRecord } from "@reposite/contract";
import type { DnsResolver } from "../ports/dns.js";
import type { DomainName } from "./domain-name.js";
import { ownershipName, ownershipValue, type RecordTargets } from "./domain-records.js";
import { dnsProxyOf, type DnsProxy } from "./proxy-ranges.js";

/** What DNS answered for one record, and the whole check: the contract's shapes (`POST …/domain/verify`'s `dns`). */
export type { DnsCheck, DnsCheckRecord } from "@reposite/contract";

interface Answer<T> {
  values: T[];
  error?: string;
}

async function ask<T>(lookup: () => Promise<T[]>): Promise<Answer<T>> {
  try {
    return { values: await lookup() };
  } catch (error) {
    return { values: [], error: (error as { code?: string }).code ?? (error as Error).message };
  }
}

const normal = (name: string) => name.toLowerCase().replace(/\.$/, "");
const list = (values: string[]) => values.join(", ");

/**
 * Looks a domain's records up now and says what is there and what is missing. A subdomain needs
 * its CNAME to the project's address; a bare domain needs A (or AAAA) records to this server and
 * nowhere else, and its TXT record with the domain's token. Addresses of a proxying DNS provider
 * are named as such, with the switch to turn off.
 */
export async function checkDns(resolver: DnsResolver, domain: DomainName, token: string, targets: RecordTargets): Promise<DnsCheck> {
  return domain.apex ? checkApex(resolver, domain, token, targets) : checkSubdomain(resolver, domain, targets);
}

async function checkSubdomain(resolver: DnsResolver, domain: DomainName, targets: RecordTargets): Promise<DnsCheck> {
  const name = domain.ascii;
  const target = normal(targets.siteHost);
  const cname = await ask(() => resolver.resolveCname(name));
  const cnames = cname.values.map(normal);
  const cnameRecord: DnsCheckRecord = { type: "CNAME", name, expected: target, found: cnames, ok: cnames.includes(target), ...errorOf(cname) };
  if (cnameRecord.ok) {
    return { found: true, message: `Found: ${name} is a CNAME to ${target}. ${VERIFIED}`, records: [cnameRecord] };
  }
  if (cname.error) return unanswered([cnameRecord], name, cname.error);
  if (cnames.length > 0) {
    return {
      found: false,
      message: `Found: ${name} is a CNAME to ${list(cnames)}. Missing: the CNAME to ${target}; change the CNAME record of ${name} to point to ${target}.`,
      records: [cnameRecord],
    };
  }
  // No CNAME: the name may still answer with addresses (a proxy, or A records set by hand).
  const [v4, v6] = await Promise.all([ask(() => resolver.resolve4(name)), ask(() => resolver.resolve6(name))]);
  const records = [cnameRecord, ...addressRecords(name, v4, v6)];
  const proxy = proxyOf([...v4.values, ...v6.values]);
  if (proxy) {
    return { found: false, message: `Found: ${name} answers with ${list([...v4.values, ...v6.values])}, addresses of ${proxy.name}'s proxy: the record is proxied by ${proxy.name}. Missing: a CNAME to ${target} this service can see; ${proxy.fix}.`, records };
  }
  const addresses = [...v4.values, ...v6.values];
  if (addresses.length > 0) {
    return { found: false, message: `Found: ${name} has address records (${list(addresses)}) but no CNAME. Missing: the CNAME to ${target}; replace the address records of ${name} with a CNAME record to ${target}.`, records };
  }
  const failed = v4.error ?? v6.error;
  if (failed) return unanswered(records, name, failed);
  return { found: false, message: `Found: no record for ${name} yet. Missing: a CNAME record named ${name} pointing to ${target}; add it at your DNS provider (changes can take a few minutes to show).`, records };
}

async function checkApex(resolver: DnsResolver, domain: DomainName, token: string, targets: RecordTargets): Promise<DnsCheck> {
  const name = domain.ascii;
  const txtName = ownershipName(name);
  const wanted = ownershipValue(token);
  const [v4, v6, txt] = await Promise.all([
    ask(() => resolver.resolve4(name)),
    ask(() => resolver.resolve6(name)),
    ask(async () => (await resolver.resolveTxt(txtName)).map((chunks) => chunks.join(""))),
  ]);
  const ours = (address: string) => address === targets.ipv4 || address === targets.ipv6;
  const foreign = [...v4.values, ...v6.values].filter((address) => !ours(address));
  const records: DnsCheckRecord[] = [];
  if (targets.ipv4 || v4.values.length > 0 || v4.error) {
    records.push({ type: "A", name, expected: targets.ipv4, found: v4.values, ok: v4.values.length > 0 && v4.values.every(ours), ...proxiedBy(v4.values), ...errorOf(v4) });
  }
  if (targets.ipv6 || v6.values.length > 0 || v6.error) {
    records.push({ type: "AAAA", name, expected: targets.ipv6, found: v6.values, ok: v6.values.length > 0 && v6.values.every(ours), ...proxiedBy(v6.values), ...errorOf(v6) });
  }
  const txtRecord: DnsCheckRecord = { type: "TXT", name: txtName, expected: wanted, found: txt.values, ok: txt.values.includes(wanted), ...errorOf(txt) };
  records.push(txtRecord);

  const failed = v4.error ?? v6.error ?? txt.error;
  if (failed) return unanswered(records, name, failed);

  const pointing = [...v4.values, ...v6.values].filter(ours);
  const seen: string[] = [];
  const missing: string[] = [];
  if (pointing.length > 0) seen.push(`${name} points to this service (${list(pointing)})`);
  const proxy = proxyOf(foreign);
  if (proxy) {
    seen.push(`${name} answers with ${list(foreign)}, addresses of ${proxy.name}'s proxy: the record is proxied by ${proxy.name}`);
    missing.push(`addresses this service can see; ${proxy.fix}`);
  } else if (foreign.length > 0) {
    seen.push(`${name} also points to ${list(foreign)}, which is not this service`);
    missing.push(`remove the A/AAAA records of ${name} that point to ${list(foreign)}`);
  }
  if (pointing.length === 0 && !proxy) {
    const wants = [targets.ipv4 && `an A record named ${name} with the value ${targets.ipv4}`, targets.ipv6 && `an AAAA record with the value ${targets.ipv6}`].filter(Boolean);
    missing.push(wants.length > 0 ? wants.join(" and ") : "an A record to this service, whose address the operator has not set (REPOSITE_PUBLIC_IPV4)");
  } else if (targets.ipv6 && !v6.values.includes(targets.ipv6) && !proxy && foreign.length === 0) {
    // Optional: the name works over IPv4 alone.
    seen.push(`no AAAA record (optional: add ${targets.ipv6} so IPv6 visitors reach it directly)`);
  }
  if (txtRecord.ok) seen.push(`the TXT record ${txtName} proves ownership`);
  else if (txt.values.length > 0) missing.push(`the TXT record ${txtName} has ${list(txt.values.map((value) => `"${value}"`))}, not "${wanted}"; set it to "${wanted}"`);
  else missing.push(`a TXT record named ${txtName} with the value ${wanted}`);

  const found = missing.length === 0;
  const parts = [`Found: ${seen.length > 0 ? seen.join("; ") : `no record for ${name} yet`}.`];
  if (found) parts.push(VERIFIED);
  else parts.push(`Missing: ${missing.join("; ")}. Add ${missing.length > 1 ? "them" : "it"} at your DNS provider (changes can take a few minutes to show).`);
  return { found, message: parts.join(" "), records };
}

const VERIFIED = "The domain is verified: its HTTPS certificate is issued automatically, usually within minutes.";

function addressRecords(name: string, v4: Answer<string>, v6: Answer<string>): DnsCheckRecord[] {
  const records: DnsCheckRecord[] = [];
  if (v4.values.length > 0) records.push({ type: "A", name, expected: null, found: v4.values, ok: false, ...proxiedBy(v4.values) });
  if (v6.values.length > 0) records.push({ type: "AAAA", name, expected: null, found: v6.values, ok: false, ...proxiedBy(v6.values) });
  return records;
}

function unanswered(records: DnsCheckRecord[], name: string, code: string): DnsCheck {
  return { found: false, message: `DNS did not answer for ${name} (${code}): nothing could be checked. Try again in a minute.`, records };
}

function proxyOf(addresses: string[]): DnsProxy | null {
  for (const address of addresses) {
    const proxy = dnsProxyOf(address);
    if (proxy) return proxy;
  }
  return null;
}

function proxiedBy(addresses: string[]): { proxied_by?: string } {
  const proxy = proxyOf(addresses);
  return proxy ? { proxied_by: proxy.name } : {};
}

function errorOf(answer: Answer<unknown>): { error?: string } {
  return answer.error ? { error: answer.error } : {};
}
