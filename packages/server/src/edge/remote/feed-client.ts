import type { EdgeCertificateView, EdgeFeedView, EdgeSiteView } from "@reposite/contract";

/** A control plane answered something other than its feed (its words are in the message). */
export class FeedError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** Longer than the control plane's long poll (25 s): a poll cut before that means the control plane is gone. */
const POLL_TIMEOUT_MS = 40_000;
const CALL_TIMEOUT_MS = 60_000;

/**
 * `reposite edge`'s side of the edge feed (`routes/edge-feed.ts`), over one or more control planes:
 * every call goes to the current one, and a control plane that does not answer (or answers 5xx)
 * makes the next call go to the next one. The token is sent, never logged.
 */
export class FeedClient {
  private current = 0;

  constructor(
    private readonly controlPlanes: readonly string[],
    private readonly token: string,
  ) {}

  /** The control plane calls go to now (for messages). */
  get address(): string {
    return this.controlPlanes[this.current]!;
  }

  /** The feed, once its version differs from `after` (or after the control plane's wait). */
  routes(after: number, signal: AbortSignal): Promise<EdgeFeedView> {
    return this.call<EdgeFeedView>(`/edge/routes?after=${after}`, {}, AbortSignal.any([signal, AbortSignal.timeout(POLL_TIMEOUT_MS)]));
  }

  /** A site's files; null when it is no longer published. */
  site(slug: string, signal: AbortSignal): Promise<EdgeSiteView | null> {
    return this.call<EdgeSiteView>(`/edge/sites/${encodeURIComponent(slug)}`, {}, AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]), true);
  }

  /** A certificate with its key; null when the name has none to serve any more. */
  certificate(name: string, signal: AbortSignal): Promise<EdgeCertificateView | null> {
    return this.call<EdgeCertificateView>(`/edge/certificates/${encodeURIComponent(name)}`, {}, AbortSignal.any([signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]), true);
  }

  /** Hands page views over to be counted. */
  visits(visits: { site_id: string; method: string; path: string; user_agent?: string; count?: number }[]): Promise<unknown> {
    return this.call("/edge/visits", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ visits }) }, AbortSignal.timeout(CALL_TIMEOUT_MS));
  }

  private async call<T>(path: string, init: RequestInit, signal: AbortSignal, notFoundIsNull = false): Promise<T> {
    const base = this.address.replace(/\/+$/, "");
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, { ...init, signal, headers: { ...init.headers, authorization: `Bearer ${this.token}` } });
    } catch (error) {
      this.next();
      throw new FeedError(`control plane ${base} did not answer: ${(error as Error).message}`, 0);
    }
    if (notFoundIsNull && response.status === 404) return (await response.body?.cancel(), null) as T;
    if (!response.ok) {
      if (response.status >= 500) this.next();
      const text = await response.text().catch(() => "");
      const words = (() => {
        try {
          return (JSON.parse(text) as { error?: string }).error ?? text;
        } catch {
          return text;
        }
      })();
      throw new FeedError(`control plane ${base} answered ${response.status} to ${path.split("?")[0]}: ${words.slice(0, 300)}`, response.status);
    }
    return (await response.json()) as T;
  }

  private next(): void {
    this.current = (this.current + 1) % this.controlPlanes.length;
  }
}
