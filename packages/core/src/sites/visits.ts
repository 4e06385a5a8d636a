import { inject, injectable, type InjectionToken } from "tsyringe";
import { ProjectStore } from "../projects/project-store.js";

/** What the counter needs to know about a request to a published site. */
export interface VisitRequest {
  /** The `User-Agent` header; a request without one is not a person's browser. */
  userAgent?: string | undefined;
  method: string;
  /** Path on the site host, without the query. */
  path: string;
}

/**
 * User agents that are not people: one pattern each, matched case-insensitively anywhere in the
 * header. Search and preview crawlers name themselves (`Googlebot`, `bingbot`, `Slackbot`,
 * `facebookexternalhit`, `Yahoo! Slurp`); scripts send their client's name; headless browsers say so.
 */
export const BOT_USER_AGENT_PATTERNS: readonly { pattern: RegExp; example: string }[] = [
  { pattern: /bot/i, example: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" },
  { pattern: /crawl/i, example: "Mozilla/5.0 (compatible; SiteCrawler/1.0)" },
  { pattern: /spider/i, example: "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)" },
  { pattern: /slurp/i, example: "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)" },
  { pattern: /facebookexternalhit|facebookcatalog/i, example: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)" },
  { pattern: /whatsapp/i, example: "WhatsApp/2.23.20.0" },
  { pattern: /preview/i, example: "Mozilla/5.0 (compatible; Embedly Preview)" },
  { pattern: /curl\//i, example: "curl/8.5.0" },
  { pattern: /wget/i, example: "Wget/1.21.4" },
  { pattern: /python-requests|python-urllib|aiohttp|httpx/i, example: "python-requests/2.31.0" },
  { pattern: /go-http-client/i, example: "Go-http-client/1.1" },
  { pattern: /node-fetch|undici|axios|got \(/i, example: "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)" },
  { pattern: /okhttp|java\/|apache-httpclient|libwww-perl|ruby|php\//i, example: "okhttp/4.12.0" },
  { pattern: /scrapy|httrack|nutch/i, example: "Scrapy/2.11.0 (+https://scrapy.org)" },
  {
    pattern: /headlesschrome|phantomjs|lighthouse|puppeteer|playwright|selenium/i,
    example: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
  },
  { pattern: /pingdom|uptime|monitor|statuscake|checkly/i, example: "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)" },
];

/** All patterns in one expression: one scan of the header per request. */
const BOT_UA = new RegExp(BOT_USER_AGENT_PATTERNS.map(({ pattern }) => `(?:${pattern.source})`).join("|"), "i");

/** Answers by user agent: browsers send a few distinct strings over and over, and a lookup is cheaper than the scan. */
const verdicts = new Map<string, boolean>();
const VERDICTS_LIMIT = 1_000;

/** True for user agents that are not a person's browser (see `BOT_USER_AGENT_PATTERNS`); a missing one counts as a bot. */
export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (!userAgent) return true;
  let bot = verdicts.get(userAgent);
  if (bot === undefined) {
    bot = BOT_UA.test(userAgent);
    // Any client can send any string: the memory stays bounded.
    if (verdicts.size >= VERDICTS_LIMIT) verdicts.clear();
    verdicts.set(userAgent, bot);
  }
  return bot;
}

/**
 * Whether a path is a page a person reads. Files (`/robots.txt`, `/sitemap.xml`, `/og.png`, the
 * search engines' `/<key>.txt`, anything whose last segment has a dot) and the 404 page are not.
 */
export function isPagePath(path: string): boolean {
  if (path === "/404") return false;
  // Runs for every request: a scan of the last segment, without slicing it out.
  for (let i = path.length - 1; i >= 0; i--) {
    const char = path.charCodeAt(i);
    if (char === 0x2f /* / */) return true;
    if (char === 0x2e /* . */) return false;
  }
  return true;
}

/** Whether a request is a page view worth counting: a GET of a page by a browser. */
export function isPageView(request: VisitRequest): boolean {
  return request.method === "GET" && isPagePath(request.path) && !isBotUserAgent(request.userAgent);
}

export interface VisitSettings {
  /** How often counted visits are added to the projects. Default 30 s. */
  flushMs: number;
}

export const DEFAULT_VISIT_SETTINGS: VisitSettings = { flushMs: 30_000 };

/** Optional: register a `Partial<VisitSettings>` under it to change how often visits are written. */
export const VISIT_SETTINGS: InjectionToken<Partial<VisitSettings>> = Symbol.for("reposite.VisitSettings");

/**
 * Page views of published sites. `count` only adds to a number in memory (it is called on the
 * runtime's hot path); every `flushMs` the numbers are added to each project's `visits` in one
 * `ProjectStore.modify` per project, and once more on `close`. A flush that fails keeps its
 * numbers for the next one. Visits counted in the last `flushMs` before a crash are lost: this is
 * a page-view counter, not a ledger.
 */
@injectable()
export class VisitCounter {
  private readonly settings: VisitSettings;
  /** Counts by project id; an entry is a mutable box, so a request costs one lookup. */
  private pending = new Map<string, { visits: number }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    @inject(ProjectStore) private readonly projects: ProjectStore,
    @inject(VISIT_SETTINGS, { isOptional: true }) settings?: Partial<VisitSettings>
  ) {
    this.settings = { ...DEFAULT_VISIT_SETTINGS, ...settings };
  }

  /**
   * Counts a request to the site of project `siteId` (`times` alike ones: a log read counts each
   * distinct line once) when it is a page view (see `isPageView`); answers whether it counted.
   */
  count(siteId: string, request: VisitRequest, times = 1): boolean {
    if (this.closed || !isPageView(request)) return false;
    const entry = this.pending.get(siteId);
    if (entry) entry.visits += times;
    else this.pending.set(siteId, { visits: times });
    // The timer runs only while there is something to write; unref'd, it never keeps the process alive.
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.settings.flushMs);
      this.timer.unref();
    }
    return true;
  }

  /** Visits counted and not yet written, by project id. */
  unwritten(): ReadonlyMap<string, number> {
    return new Map([...this.pending].map(([siteId, { visits }]) => [siteId, visits]));
  }

  /** Adds what was counted to the projects now; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  /** Stops the timer and writes what is left; later counts are ignored. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopTimer();
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) {
      this.stopTimer();
      return;
    }
    const batch = this.pending;
    this.pending = new Map();
    await Promise.all(
      [...batch].map(async ([siteId, { visits }]) => {
        try {
          // null: the project is gone, and its visits with it.
          await this.projects.modify(siteId, (project) => ({ ...project, visits: (project.visits ?? 0) + visits }));
        } catch (error) {
          console.error(`[reposite] [visits] could not add ${visits} visits to project ${siteId}; kept for the next flush:`, error);
          const entry = this.pending.get(siteId);
          if (entry) entry.visits += visits;
          else this.pending.set(siteId, { visits });
        }
      })
    );
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
