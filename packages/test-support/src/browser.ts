import type { Browser } from "playwright-core";

/** Debian's Chromium; the tests never download a browser. */
export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags that keep Chromium headless, quiet and off the network except for the pages a test opens. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A headless Chromium driven by playwright-core: `/usr/bin/chromium` unless `CHROMIUM_PATH` names
 * another. playwright-core is loaded only here, so suites that never open a browser do not pay for it.
 */
export async function launchBrowser(options: { executablePath?: string } = {}): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: options.executablePath ?? (process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM_PATH),
    headless: true,
    args: CHROMIUM_ARGS,
  });
}
