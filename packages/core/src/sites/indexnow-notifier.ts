import type { SearchNotifier } from "../ports/search-notifier.js";

export const DEFAULT_INDEXNOW_ENDPOINT = "https://api.indexnow.org/indexnow";

/** IndexNow takes at most this many URLs in one request. */
export const INDEXNOW_MAX_URLS = 10_000;

export interface IndexNowNotifierOptions {
  /** The operator's key (`REPOSITE_INDEXNOW_KEY`): 8 to 128 characters of `a-z`, `A-Z`, `0-9`, `-`. */
  key: string;
  /**
   * Where notices go (`REPOSITE_INDEXNOW_ENDPOINT`); default `https://api.indexnow.org/indexnow`,
   * which shares them with every engine that takes part (Bing, Yandex, Seznam, Naver, …).
   */
  endpoint?: string;
  /** The `fetch` to send with; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Milliseconds one request may take; default 10 000. */
  timeout?: number;
}

/**
 * Search notices over IndexNow (indexnow.org/documentation): each site host serves the key file
 * at `/<key>.txt`, and changed URLs are sent as `POST {host, key, keyLocation, urlList}`, at most
 * 10,000 per request. `200` and `202` are success; anything else rejects with the status.
 */
export function createIndexNowNotifier(options: IndexNowNotifierOptions): SearchNotifier {
  const { key } = options;
  if (!/^[a-zA-Z0-9-]{8,128}$/.test(key)) {
    throw new Error("[reposite] [indexnow] The key must be 8 to 128 characters of a-z, A-Z, 0-9 and -.");
  }
  const endpoint = options.endpoint ?? DEFAULT_INDEXNOW_ENDPOINT;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new Error(`[reposite] [indexnow] The endpoint must be an http(s) address, not ${JSON.stringify(endpoint)}.`);
  }
  const send = options.fetch ?? globalThis.fetch;
  const timeout = options.timeout ?? 10_000;
  const keyFile = { path: `/${key}.txt`, body: key };

  return {
    keyFile,
    async notify(host, urls) {
      if (urls.length === 0) return;
      // The key file sits on the same host and scheme as the pages it vouches for.
      const keyLocation = new URL(keyFile.path, urls[0]).href;
      for (let start = 0; start < urls.length; start += INDEXNOW_MAX_URLS) {
        const urlList = urls.slice(start, start + INDEXNOW_MAX_URLS);
        let response: Response;
        try {
          response = await send(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json; charset=utf-8" },
            body: JSON.stringify({ host, key, keyLocation, urlList }),
            signal: AbortSignal.timeout(timeout),
          });
        } catch (error) {
          throw new Error(`[reposite] [indexnow] ${endpoint} could not be reached for ${host}.`, { cause: error });
        }
        await response.body?.cancel().catch(() => {});
        if (response.status !== 200 && response.status !== 202) {
          throw new Error(`[reposite] [indexnow] ${endpoint} answered ${response.status} for ${host} (${urlList.length} URLs).`);
        }
      }
    },
  };
}
