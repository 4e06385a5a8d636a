import type { InjectionToken } from "tsyringe";

/** How `GET …/domain` finds out whether a domain is live. */
export interface DomainSettings {
  /** The port visitors reach this service on over HTTPS (tried first); null skips HTTPS. */
  liveHttpsPort: number | null;
  /** The port visitors reach it on over plain HTTP (tried next); null skips HTTP. */
  liveHttpPort: number | null;
  /** Milliseconds one attempt of the live check may take. */
  liveTimeoutMs: number;
  /** How long a live answer is reused before the domain is asked again. */
  liveCacheMs: number;
  /** Extra CA certificates (PEM) the live check trusts over HTTPS, beside the system's (a private CA, tests). */
  liveCa?: string;
}

export const DEFAULT_DOMAIN_SETTINGS: DomainSettings = {
  liveHttpsPort: 443,
  liveHttpPort: 80,
  liveTimeoutMs: 5_000,
  liveCacheMs: 30_000,
};

export const DOMAIN_SETTINGS: InjectionToken<Partial<DomainSettings>> = Symbol.for("reposite.DomainSettings");

/** The path a live domain answers with its proof (`reposite-verification=<token>`), on the domain itself. */
export const DOMAIN_PROOF_PATH = "/.well-known/reposite-domain";
