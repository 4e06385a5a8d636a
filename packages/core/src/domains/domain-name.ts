import { isIP } from "node:net";
import { domainToASCII, domainToUnicode } from "node:url";
import { parse as parseHostname } from "tldts";
import { unprocessable } from "../errors.js";

/** A custom domain as it is kept and shown. */
export interface DomainName {
  /** Lower case ASCII (punycode for internationalised names), no trailing dot: what DNS, TLS and the table use. */
  ascii: string;
  /** The same name as people write it (`bücher.example`); equal to `ascii` for plain names. */
  unicode: string;
  /**
   * The name one registers (`example.com`, `example.co.uk`): the zone its records go in. A name
   * equal to it is a bare (apex) domain, which cannot have a CNAME.
   */
  zone: string;
  apex: boolean;
}

/** What a name must not be: the service's own hosts. */
export interface ReservedHosts {
  sitesDomain: string;
  baseUrl: string;
}

export const MAX_DOMAIN_LENGTH = 253;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
/**
 * Special-use names (RFC 6761, 6762, 7686, 8375): never on the public DNS, so no certificate and
 * no visitor could ever reach them.
 */
const SPECIAL_USE = ["localhost", "local", "invalid", "onion", "arpa", "home.arpa", "internal"];

const invalid = (why: string) => unprocessable(`domain: ${why}`, "invalid_domain", { field: "domain" });
const reserved = (why: string) => unprocessable(`domain: ${why}`, "reserved_domain", { field: "domain" });

/** Host name of a configured host (`sites.example:8080`, a URL's host): lower case, no port. */
function hostOnly(host: string): string {
  return host.toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
}

/**
 * Checks a domain a person typed and gives its stored form. `422 invalid_domain` (field `domain`)
 * for what is no domain name (an address with a scheme or path, an IP address, one label, a
 * public suffix such as `co.uk`, a label or name too long, characters DNS does not take);
 * `422 reserved_domain` for the service's own names (under the sites domain or the service's host)
 * and special-use names (`localhost`, `.local`, …).
 *
 * Bare or not is decided by the public suffix list (tldts, its ICANN part): `example.co.uk` is bare,
 * `shop.example.co.uk` is not.
 */
export function parseDomainName(input: string, hosts: ReservedHosts): DomainName {
  let name = input.trim();
  if (name === "") throw invalid("give a domain name, such as www.example.com.");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name) || /[/?#@]/.test(name)) {
    throw invalid("give the name only, such as www.example.com, without https:// or a path.");
  }
  if (name.endsWith(".")) name = name.slice(0, -1);
  const bare = name.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0 || /^\d+$/.test(name.split(".").pop() ?? "")) {
    throw invalid("an IP address is not a domain; give a name such as www.example.com.");
  }
  if (name.includes(":")) throw invalid("give the name without a port.");
  const ascii = domainToASCII(name);
  if (ascii === "" || isIP(ascii) !== 0) throw invalid(`${name} is not a valid domain name (letters, digits and hyphens, labels separated by dots).`);
  if (ascii.length > MAX_DOMAIN_LENGTH) throw invalid(`a domain name is at most ${MAX_DOMAIN_LENGTH} characters.`);
  const labels = ascii.split(".");
  if (labels.length < 2) throw invalid(`${name} has a single label; give a full name such as ${name}.com or www.${name}.com.`);
  for (const label of labels) {
    if (!LABEL.test(label)) {
      throw invalid(
        label.length > 63
          ? "each part between dots is at most 63 characters."
          : `"${label}" is not a valid part of a domain name (letters, digits and hyphens, not starting or ending with a hyphen).`,
      );
    }
  }
  if (SPECIAL_USE.some((special) => ascii === special || ascii.endsWith(`.${special}`))) {
    throw reserved(`${name} is a special-use name that is never on the public DNS.`);
  }
  for (const own of [hostOnly(hosts.sitesDomain), hostOnly(new URL(hosts.baseUrl).host)]) {
    if (ascii === own || ascii.endsWith(`.${own}`)) {
      throw reserved(`${name} belongs to this service (${own}); use a domain of your own. Your project's own address keeps working anyway.`);
    }
  }
  const parsed = parseHostname(ascii, { allowPrivateDomains: false });
  if (!parsed.domain) throw invalid(`${name} is a public suffix, under which people register names; give a name such as example.${ascii}.`);
  return { ascii, unicode: domainToUnicode(ascii), zone: parsed.domain, apex: ascii === parsed.domain };
}

/** The record's name relative to its zone, as DNS providers' forms ask for it: `@` for the zone itself. */
export function relativeName(name: string, zone: string): string {
  return name === zone ? "@" : name.slice(0, -(zone.length + 1));
}

/** A stored (already checked) name with its zone, without checking it again. */
export function describeDomain(ascii: string): DomainName {
  const zone = parseHostname(ascii, { allowPrivateDomains: false }).domain ?? ascii;
  return { ascii, unicode: domainToUnicode(ascii), zone, apex: ascii === zone };
}

/** `<slug>.<sites domain>` without the sites domain's port: what a subdomain's CNAME points to. */
export function siteHostOf(sitesDomain: string, slug: string): string {
  return `${slug}.${hostOnly(sitesDomain)}`;
}
