import type { InjectionToken } from "tsyringe";
import type { BaseImages } from "./repo-analysis/repo-check.js";

/** Settings every service may read. The server fills them from environment variables. */
export interface RepositeConfig {
  /** Public address of the API and the browser pages, for example `https://reposite.example`. */
  baseUrl: string;
  /** Domain under which project sites answer, `https://<slug>.<sitesDomain>`; may carry a port. */
  sitesDomain: string;
  /** Folder that holds everything the embedded defaults keep. */
  dataDir: string;
  /** Sender of the service's emails. */
  mailFrom: string;
  /** Emails of the accounts that may open the operator dashboard. */
  operatorEmails: string[];
  /**
   * Let addresses users give (a project's logo) lead to loopback and private networks. Off by
   * default, so a user cannot make the server call its own network; on for a server that only
   * serves a private network, and in tests.
   */
  allowPrivateFetch: boolean;
  /** Memory for published sites served from this process, in bytes (bodies and bookkeeping); least recently asked-for sites go past it. */
  siteCacheBytes: number;
  /** Base images of the Dockerfiles Reposite writes, by logical name (a private mirror works). */
  baseImages: BaseImages;
  /**
   * The server's public IPv4 address: the A record a bare custom domain (`example.com`) is told to
   * add. Null: bare domains cannot be connected (subdomains still can, by CNAME).
   */
  publicIpv4: string | null;
  /** The server's public IPv6 address, for the AAAA record of a bare custom domain; null for none. */
  publicIpv6: string | null;
}

export const CONFIG: InjectionToken<RepositeConfig> = Symbol.for("reposite.Config");

/**
 * The address of a project's site. Sites use the scheme of the service's own address, so a
 * local server on `http://localhost:3000` gives `http://<slug>.localhost:3000`.
 */
export function siteUrl(config: Pick<RepositeConfig, "baseUrl" | "sitesDomain">, slug: string): string {
  const scheme = new URL(config.baseUrl).protocol === "http:" ? "http" : "https";
  return `${scheme}://${slug}.${config.sitesDomain}`;
}
