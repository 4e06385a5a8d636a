import type { InjectionToken } from "tsyringe";

/**
 * Tells search engines that pages of a published site were added or changed. Off by default (no
 * registration): publishing still writes `sitemap.xml` and the `Sitemap:` line of `robots.txt`,
 * which crawlers read on their own schedule. The production provider is IndexNow
 * (`createIndexNowNotifier`), on when the operator sets `REPOSITE_INDEXNOW_KEY`.
 */
export interface SearchNotifier {
  /**
   * A file every site host must serve for the engines to trust the notice (IndexNow's key file at
   * `/<key>.txt`); publishing puts it in each snapshot.
   */
  readonly keyFile?: { path: string; body: string };
  /**
   * Sends the absolute `urls` of one site host (`host` as in `new URL(url).host`). Rejects when the
   * engine refused or could not be reached; callers log that and carry on.
   */
  notify(host: string, urls: string[]): Promise<void>;
}

export const SEARCH_NOTIFIER: InjectionToken<SearchNotifier> = Symbol.for("reposite.SearchNotifier");
