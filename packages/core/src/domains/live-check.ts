import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import { inject, injectable } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { DNS_RESOLVER, type DnsResolver } from "../ports/dns.js";
import { ownershipValue } from "./domain-records.js";
import { DEFAULT_DOMAIN_SETTINGS, DOMAIN_PROOF_PATH, DOMAIN_SETTINGS, type DomainSettings } from "./domain-settings.js";

/** Whether a domain answers as the project's site, and where. */
export interface LiveAnswer {
  live: boolean;
  /** Where it answered (`https://example.com/`), or null. */
  url: string | null;
  /** Why not, for a person; null when live. */
  reason: string | null;
}

/** What the check needs of a domain. */
export interface LiveTarget {
  domain: string;
  token: string;
  /** `<slug>.<sites domain>` without port: the addresses it resolves to are this service's. */
  siteHost: string;
}

const PROOF_LIMIT = 1024;

/**
 * `live` of `GET …/domain`: the domain is looked up through the DnsResolver, and only an address
 * that is this service's (the operator's public addresses, or where the project's own address
 * resolves) is connected to, so a name pointed anywhere else never makes the server call it. On
 * it, HTTPS (certificate checked, the domain as SNI) then HTTP are asked for the domain's proof
 * with the domain as Host: the proof is what this Reposite serves for this project's domain and
 * nothing else does. Answers are kept `liveCacheMs`.
 */
@injectable()
export class LiveCheck {
  private readonly settings: DomainSettings;
  private readonly answers = new Map<string, { at: number; token: string; answer: Promise<LiveAnswer> }>();

  constructor(
    @inject(DNS_RESOLVER) private readonly resolver: DnsResolver,
    @inject(CONFIG) private readonly config: RepositeConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(DOMAIN_SETTINGS, { isOptional: true }) settings?: Partial<DomainSettings>,
  ) {
    this.settings = { ...DEFAULT_DOMAIN_SETTINGS, ...settings };
  }

  check(target: LiveTarget): Promise<LiveAnswer> {
    const now = this.clock.now().getTime();
    const kept = this.answers.get(target.domain);
    if (kept && kept.token === target.token && now - kept.at < this.settings.liveCacheMs) return kept.answer;
    if (this.answers.size > 10_000) this.answers.clear();
    const answer = this.ask(target);
    this.answers.set(target.domain, { at: now, token: target.token, answer });
    return answer;
  }

  /** Drops a kept answer (the domain was set, verified or removed). */
  forget(domain: string): void {
    this.answers.delete(domain);
  }

  private async ask(target: LiveTarget): Promise<LiveAnswer> {
    let addresses: string[];
    let ours: Set<string>;
    try {
      addresses = await this.addressesOf(target.domain);
      ours = new Set([...(await this.addressesOf(target.siteHost)), ...[this.config.publicIpv4, this.config.publicIpv6].filter((ip): ip is string => !!ip)]);
    } catch (error) {
      return notLive(`DNS did not answer (${(error as { code?: string }).code ?? (error as Error).message}).`);
    }
    if (addresses.length === 0) return notLive(`${target.domain} has no address in DNS.`);
    const here = addresses.filter((address) => ours.has(address));
    if (here.length === 0) return notLive(`${target.domain} points to ${addresses.join(", ")}, which is not this service.`);
    const proof = ownershipValue(target.token);
    const tries: { scheme: "https" | "http"; port: number }[] = [];
    if (this.settings.liveHttpsPort !== null) tries.push({ scheme: "https", port: this.settings.liveHttpsPort });
    if (this.settings.liveHttpPort !== null) tries.push({ scheme: "http", port: this.settings.liveHttpPort });
    const failures: string[] = [];
    for (const { scheme, port } of tries) {
      try {
        const body = await this.fetchProof(scheme, here[0]!, port, target.domain);
        const defaultPort = scheme === "https" ? 443 : 80;
        if (body.trim() === proof) return { live: true, url: `${scheme}://${target.domain}${port === defaultPort ? "" : `:${port}`}/`, reason: null };
        failures.push(`${scheme.toUpperCase()} answered, but not as this project's site`);
      } catch (error) {
        failures.push(`${scheme.toUpperCase()}: ${(error as Error).message}`);
      }
    }
    return notLive(`${target.domain} does not answer as this project's site yet (${failures.join("; ")}).`);
  }

  private async addressesOf(name: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([this.resolver.resolve4(name), this.resolver.resolve6(name)]);
    return [...v4, ...v6];
  }

  private fetchProof(scheme: "https" | "http", address: string, port: number, domain: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const options = {
        host: address,
        port,
        path: DOMAIN_PROOF_PATH,
        method: "GET",
        headers: { host: domain, accept: "text/plain" },
        agent: false as const,
        timeout: this.settings.liveTimeoutMs,
      };
      const answered = (res: import("node:http").IncomingMessage) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`status ${res.statusCode}`));
        }
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          if (body.length > PROOF_LIMIT) req.destroy(new Error("answer too long"));
        });
        res.on("end", () => resolve(body));
        res.on("error", reject);
      };
      const req =
        scheme === "https"
          ? httpsRequest({ ...options, servername: domain, ...(this.settings.liveCa ? { ca: [...rootCertificates, this.settings.liveCa] } : {}) }, answered)
          : httpRequest(options, answered);
      req.on("timeout", () => req.destroy(new Error("no answer in time")));
      req.on("error", (error: NodeJS.ErrnoException) => reject(new Error(error.code === "ECONNREFUSED" ? "nothing listens there" : error.message)));
      req.end();
    });
  }
}

const notLive = (reason: string): LiveAnswer => ({ live: false, url: null, reason });
