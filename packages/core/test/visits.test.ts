import { createStorage, type Storage } from "unstorage";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createReposite } from "../src/index.js";
import { ProjectStore } from "../src/projects/project-store.js";
import type { ProjectRecord } from "../src/projects/project.js";
import { BOT_USER_AGENT_PATTERNS, isBotUserAgent, isPagePath, VISIT_SETTINGS, VisitCounter, type VisitSettings } from "../src/sites/visits.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const EDGE = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0";

/** User agents that are not people, one or more per pattern family. */
const BOTS = [
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  "Twitterbot/1.0",
  "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
  "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
  "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
  "CCBot/2.0 (https://commoncrawl.org/faq/)",
  "Mozilla/5.0 (compatible; SemrushCrawler)",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "WhatsApp/2.23.20.0",
  "curl/8.5.0",
  "Wget/1.21.4",
  "python-requests/2.31.0",
  "Python-urllib/3.11",
  "Go-http-client/1.1",
  "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
  "undici",
  "axios/1.7.2",
  "okhttp/4.12.0",
  "Java/17.0.2",
  "libwww-perl/6.72",
  "Scrapy/2.11.0 (+https://scrapy.org)",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
  "Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)",
  "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
];

describe("visits: what counts", () => {
  it.each(BOT_USER_AGENT_PATTERNS.map(({ pattern, example }) => [pattern.source, example]))("pattern %s catches its example", (_, example) => {
    expect(isBotUserAgent(example)).toBe(true);
  });

  it.each(BOTS)("not a person: %s", (userAgent) => {
    expect(isBotUserAgent(userAgent)).toBe(true);
  });

  it.each([FIREFOX, CHROME, SAFARI_IPHONE, EDGE])("a person's browser: %s", (userAgent) => {
    expect(isBotUserAgent(userAgent)).toBe(false);
  });

  it("a request without a user agent is not a person", () => {
    expect(isBotUserAgent(undefined)).toBe(true);
    expect(isBotUserAgent("")).toBe(true);
  });

  it.each([
    ["/", true],
    ["/about", true],
    ["/faq", true],
    ["/auth", true],
    ["/community/welcome", true],
    ["/robots.txt", false],
    ["/sitemap.xml", false],
    ["/og.png", false],
    ["/0123456789abcdef.txt", false],
    ["/favicon.ico", false],
    ["/404", false],
  ] as const)("page path %s: %s", (path, page) => {
    expect(isPagePath(path)).toBe(page);
  });
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(closers.splice(0).map((close) => close()));
});

function project(id: string, visits = 0): ProjectRecord {
  return {
    id,
    owner_id: "acct_1",
    created_at: "2026-03-01 10:00:00",
    updated_at: "2026-03-01 10:00:00",
    repository: {
      host: "github",
      owner: "acme",
      name: id,
      url: `https://github.com/acme/${id}`,
      private: false,
      default_branch: "main",
      description: "",
      topics: [],
    },
    slug: id,
    name: id,
    description: "",
    ga_id: "",
    design: "",
    color_mode: "",
    logo_url: "",
    auth_redirect_to_app: false,
    visits,
  };
}

async function setup(settings: Partial<VisitSettings> = {}) {
  const storage: Storage = createStorage();
  const reposite = createReposite({
    storage,
    repoHosts: [],
    register: (container) => {
      container.register(VISIT_SETTINGS, { useValue: settings });
      container.registerSingleton(VisitCounter);
    },
  });
  const store = reposite.container.resolve(ProjectStore);
  await store.insert(project("site_a", 5));
  await store.insert(project("site_b"));
  const counter = reposite.container.resolve(VisitCounter);
  const modify = vi.spyOn(store, "modify");
  closers.push(async () => {
    await counter.close();
    await reposite.close();
  });
  const visitsOf = async (id: string) => (await store.get(id))?.visits;
  return { counter, store, modify, visitsOf };
}

const view = (path = "/", userAgent: string | undefined = FIREFOX, method = "GET") => ({ path, userAgent, method });

describe("visits: counting and writing", () => {
  it("counts GETs of pages by browsers only: no bots, no HEAD, no files", async () => {
    const { counter } = await setup();
    expect(counter.count("site_a", view("/"))).toBe(true);
    expect(counter.count("site_a", view("/about", CHROME))).toBe(true);
    for (const bot of BOTS) expect(counter.count("site_a", view("/", bot))).toBe(false);
    expect(counter.count("site_a", { path: "/", method: "GET" })).toBe(false);
    expect(counter.count("site_a", view("/", FIREFOX, "HEAD"))).toBe(false);
    expect(counter.count("site_a", view("/", FIREFOX, "POST"))).toBe(false);
    for (const path of ["/robots.txt", "/sitemap.xml", "/og.png", "/abc.txt"]) expect(counter.count("site_a", view(path))).toBe(false);
    expect(counter.unwritten().get("site_a")).toBe(2);
  });

  it("counts alike requests at once (a log read's repeated lines), and a bot's not at all", async () => {
    const { counter } = await setup();
    expect(counter.count("site_a", view("/"), 40)).toBe(true);
    expect(counter.count("site_a", view("/about", CHROME))).toBe(true);
    expect(counter.count("site_a", view("/", BOTS[0]), 40)).toBe(false);
    expect(counter.unwritten().get("site_a")).toBe(41);
  });

  it("writes in batches: one modify per project per flush, never one per request", async () => {
    const { counter, modify, visitsOf } = await setup();
    for (let i = 0; i < 250; i++) counter.count("site_a", view());
    for (let i = 0; i < 7; i++) counter.count("site_b", view("/faq", SAFARI_IPHONE));
    expect(modify).not.toHaveBeenCalled();

    await counter.flush();
    expect(modify).toHaveBeenCalledTimes(2);
    expect(await visitsOf("site_a")).toBe(255);
    expect(await visitsOf("site_b")).toBe(7);
    expect(counter.unwritten().size).toBe(0);

    // Nothing new: nothing written.
    await counter.flush();
    expect(modify).toHaveBeenCalledTimes(2);
  });

  it("flushes every flushMs on an unref'd timer that runs only while there is something to write", async () => {
    vi.useFakeTimers();
    const { counter, modify, visitsOf } = await setup({ flushMs: 10_000 });
    const timer = () => (counter as unknown as { timer?: NodeJS.Timeout }).timer;
    expect(timer()).toBeUndefined();
    counter.count("site_b", view());
    counter.count("site_b", view());
    expect(timer()?.hasRef()).toBe(false);

    await vi.advanceTimersByTimeAsync(9_999);
    expect(modify).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect(modify).toHaveBeenCalledTimes(1));
    vi.useRealTimers();
    await vi.waitFor(async () => expect(await visitsOf("site_b")).toBe(2));

    vi.useFakeTimers();
    // An idle tick stops the timer.
    await counter.flush();
    expect(timer()).toBeUndefined();
  });

  it("close writes what is left and ignores later counts", async () => {
    const { counter, visitsOf } = await setup();
    counter.count("site_a", view());
    counter.count("site_a", view());
    await counter.close();
    expect(await visitsOf("site_a")).toBe(7);
    expect(counter.count("site_a", view())).toBe(false);
    await counter.flush();
    expect(await visitsOf("site_a")).toBe(7);
  });

  it("a failed write keeps its visits for the next flush; a deleted project's are dropped", async () => {
    const { counter, modify, visitsOf } = await setup();
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    modify.mockRejectedValueOnce(new Error("storage is down"));
    counter.count("site_a", view());
    counter.count("gone", view());
    await counter.flush();
    expect(error).toHaveBeenCalledOnce();
    expect(counter.unwritten().get("site_a")).toBe(1);
    expect(counter.unwritten().has("gone")).toBe(false);

    counter.count("site_a", view());
    await counter.flush();
    expect(await visitsOf("site_a")).toBe(7);
    error.mockRestore();
  });
});
