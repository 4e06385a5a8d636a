import { mkdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";

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

/** The widths every dashboard page is checked and pictured at: a laptop and a phone. */
export const SCREEN_WIDTHS = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
] as const;

/** WCAG 2 A and AA: what the dashboard pages are held to. */
export const AXE_WCAG_AA = ["wcag2a", "wcag2aa"];

/**
 * axe-core's violations of `tags` on the page as it is now, one line each (rule, element, why).
 * axe is evaluated through the DevTools protocol, which the page's CSP does not govern, so a
 * page with a strict policy is checked as it is served.
 */
export async function axeViolations(page: Page, tags: readonly string[] = AXE_WCAG_AA): Promise<string[]> {
  const installed = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === "object");
  if (!installed) {
    const source = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    await page.evaluate(source);
  }
  return page.evaluate(async (values) => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; nodes: { target: string[]; failureSummary?: string }[] }[] }> } }).axe;
    const { violations } = await axe.run(document, { runOnly: { type: "tag", values }, resultTypes: ["violations"] });
    return violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id} ${node.target.join(" ")}: ${node.failureSummary ?? ""}`));
  }, [...tags]);
}

/** Where screenshots are kept as artifacts: `REPOSITE_ARTIFACTS_DIR/screens`, or /tmp/reposite-artifacts/screens. */
export function screenshotDir(): string {
  return `${process.env.REPOSITE_ARTIFACTS_DIR || "/tmp/reposite-artifacts"}/screens`;
}

/**
 * The page at each of `SCREEN_WIDTHS`: axe's WCAG AA violations (returned, labelled with the
 * width) and a full-length screenshot `<name>-<width>.png` in the artifacts folder. The viewport
 * is put back afterwards.
 */
export async function checkAtWidths(page: Page, name: string): Promise<string[]> {
  const dir = screenshotDir();
  await mkdir(dir, { recursive: true });
  const before = page.viewportSize();
  const problems: string[] = [];
  for (const screen of SCREEN_WIDTHS) {
    await page.setViewportSize({ width: screen.width, height: screen.height });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    if (wide) problems.push(`${name}@${screen.name}: scrolls sideways`);
    for (const line of await axeViolations(page)) problems.push(`${name}@${screen.name}: ${line}`);
    await page.screenshot({ path: `${dir}/${name}-${screen.name}.png`, fullPage: true });
  }
  if (before) await page.setViewportSize(before);
  return problems;
}
