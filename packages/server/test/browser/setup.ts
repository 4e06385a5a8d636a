import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type Clock, type ContainerRuntime } from "@reposite/core";
import { freePort,lastMailTo, launchBrowser, linkIn, startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { settingsFromEnv } from "../../src/config-from-env.js";
import { startServer, type RunningServer } from "../../src/start-server.js";
import { DEFAULT_REPOS } from "../harness.js";
import { startDroppingProxy, type DroppingProxy } from "./dropping-proxy.js";

export const SCREENSHOT_DIR = "/tmp/reposite-screens";

/** A real listening server, a loopback fake GitHub and a headless Chromium. */
export interface BrowserRig {
  server: RunningServer;
  /** `http://127.0.0.1:<port>`, also the server's `baseUrl` (sign-in links point here); the proxy's with `throughProxy`. */
  url: string;
  dataDir: string;
  browser: Browser;
  github: FakeGitHub;
  /** With `throughProxy`: the proxy in front of the server. */
  proxy: DroppingProxy | null;
  /** Moves the server's clock forward (login requests expire after 15 minutes). */
  advance(ms: number): void;
  /** A fresh browser profile: its own cookies. */
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  /** Signs `page` in the way a person does: the form, the mailed link, the button. */
  signIn(page: Page, email: string, from?: string): Promise<void>;
  /** The link in the newest mail to `email`. */
  mailedLink(email: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `env`: more of the operator's environment, for example `OPENAI_BASE_URL` of a fake model.
 * `sitesOnLocalhost`: published sites answer at `http://<slug>.localhost:<port>/`, which Chromium
 * resolves to the loopback address, so a test can open them (otherwise at `sites.test`).
 */
export async function startBrowserRig(
  options: {
    operators?: string[];
    env?: Record<string, string>;
    sitesOnLocalhost?: boolean;
    /** Connecting GitHub works: an OAuth app registered at the fake GitHub, which approves at once. */
    githubOAuth?: boolean;
    /** Where apps would run: hosting is on (saas sites can be made). Off by default. */
    containerRuntime?: ContainerRuntime;
    /** People reach the server through a proxy that can cut connections (`rig.proxy`); its address is the server's base URL. */
    throughProxy?: boolean;
  } = {},
): Promise<BrowserRig> {
  const oauth = { clientId: "rig-client", clientSecret: "rig-secret", autoApprove: true };
  const github = await startFakeGitHub({ repos: DEFAULT_REPOS, ...(options.githubOAuth ? { oauth } : {}) });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-browser-"));
  const port = await freePort();
  const proxy = options.throughProxy ? await startDroppingProxy(port) : null;
  const url = proxy?.url ?? `http://127.0.0.1:${port}`;
  // Configured the way an operator does, through the environment.
  const settings = settingsFromEnv({
    PORT: String(port),
    HOST: "127.0.0.1",
    REPOSITE_BASE_URL: url,
    REPOSITE_SITES_DOMAIN: options.sitesOnLocalhost ? `localhost:${port}` : "sites.test",
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_OPERATORS: (options.operators ?? []).join(","),
    REPOSITE_GITHUB_API_URL: github.url,
    ...options.env,
  });
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  const reposite = createReposite({
    ...settings.reposite,
    github: { ...settings.reposite.github, webHosts: ["github.com"] },
    clock,
    ...(options.githubOAuth ? { githubOAuth: { clientId: oauth.clientId, clientSecret: oauth.clientSecret, webUrl: github.webUrl } } : {}),
    ...(options.containerRuntime ? { containerRuntime: options.containerRuntime } : {}),
  });
  const server = await startServer({ settings, reposite });
  expect(server.url).toBe(`http://127.0.0.1:${port}`);
  const browser = await launchBrowser();
  await mkdir(SCREENSHOT_DIR, { recursive: true });

  const mailedLink = async (email: string) => linkIn(await lastMailTo(join(dataDir, "outbox"), email));
  return {
    server,
    url,
    dataDir,
    browser,
    github,
    proxy,
    advance: (ms) => {
      offset += ms;
    },
    async newPage() {
      const context = await browser.newContext({ baseURL: url, viewport: { width: 1000, height: 800 } });
      return { context, page: await context.newPage() };
    },
    mailedLink,
    async signIn(page, email, from = "/account") {
      await page.goto(from);
      await page.getByLabel("Email address").fill(email);
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      await expect.poll(() => page.getByRole("heading", { name: "Check your email" }).isVisible()).toBe(true);
      await page.goto(await mailedLink(email));
      await page.getByRole("button", { name: "Continue signing in" }).click();
      await page.waitForURL((target) => !target.pathname.startsWith("/account/sign-in"));
    },
    async close() {
      await browser.close();
      await server.close();
      await proxy?.close();
      await github.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The session cookie the browser holds, as a `Cookie` header for requests sent from Node. */
export async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((candidate) => candidate.name === "reposite_session");
  if (!cookie) throw new Error("not signed in");
  return `reposite_session=${cookie.value}`;
}
