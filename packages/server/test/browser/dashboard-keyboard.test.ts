import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserRig, type BrowserRig } from "./setup.js";

/**
 * The dashboard is keyboard-operable (issue 27): in headless Chromium against a real listening
 * server, a person who uses no pointer makes a site from a repository link, opens its Design
 * screen, picks a design and saves it, with Tab, Enter, Space and the arrow keys only. Every
 * control that takes the focus on the way shows it (a computed outline a sighted person sees).
 */

/** What the focused element is, and whether its focus can be seen. */
interface Focused {
  tag: string;
  /** Its accessible-ish name: aria-label, its label's text, its own text or its value. */
  name: string;
  type: string;
  value: string;
  checked: boolean;
  outline: string;
  visible: boolean;
}

const focused = (page: Page): Promise<Focused | null> =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return null;
    const input = element as HTMLInputElement;
    const label = input.labels?.[0]?.textContent ?? "";
    const style = getComputedStyle(element);
    const width = parseFloat(style.outlineWidth);
    return {
      tag: element.tagName.toLowerCase(),
      name: (element.getAttribute("aria-label") ?? (label || element.textContent || input.value || "")).replace(/\s+/g, " ").trim(),
      type: input.type ?? "",
      value: input.value ?? "",
      checked: Boolean(input.checked),
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      // A focus indicator: an outline drawn (not none, wider than a hairline) in a colour that is not transparent.
      visible: style.outlineStyle !== "none" && width >= 2 && !/rgba\(.*, 0\)$/.test(style.outlineColor),
    };
  });

describe("the dashboard with the keyboard only, in Chromium", () => {
  let rig: BrowserRig;
  let page: Page;
  /** Every control the focus landed on, with its indicator. */
  const seen: Focused[] = [];

  /** Presses Tab until the focus is on what `wanted` accepts, checking each focused control on the way. */
  const tabTo = async (what: string, wanted: (element: Focused) => boolean, { max = 80 } = {}): Promise<Focused> => {
    for (let presses = 0; presses < max; presses++) {
      await page.keyboard.press("Tab");
      const now = await focused(page);
      if (!now) continue;
      seen.push(now);
      expect(now.visible, `focus on the ${now.tag} "${now.name}" is not visible (outline ${now.outline})`).toBe(true);
      if (wanted(now)) return now;
    }
    throw new Error(`${what}: not reached with ${max} presses of Tab`);
  };

  beforeAll(async () => {
    rig = await startBrowserRig({ sitesOnLocalhost: true });
    page = (await rig.newPage()).page;
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("makes a site from a link, opens its Design screen, picks a design and saves it, with visible focus throughout", async () => {
    // Signing in by the mailed link, with the keyboard too (opening the mail's link is a navigation).
    await page.goto("/account/sites");
    await tabTo("the email field", (element) => element.tag === "input" && element.name === "Email address");
    await page.keyboard.type("keys@example.com");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Check your email" }).waitFor();
    await page.goto(await rig.mailedLink("keys@example.com"));
    await tabTo("the confirm button", (element) => element.tag === "button" && element.name === "Continue signing in");
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/account/sites");

    await tabTo("the repository link", (element) => element.tag === "input" && element.name === "Repository link");
    await page.keyboard.type("https://github.com/acme/rocket-cli");
    await tabTo("the create button", (element) => element.tag === "button" && element.name === "Make the site");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/account\/sites\/site_[^/]+\?done=created$/);
    const siteId = new URL(page.url()).pathname.split("/")[3]!;
    expect(await page.getByRole("heading", { name: "rocket-cli", level: 1 }).isVisible()).toBe(true);

    await tabTo("the Design screen's link", (element) => element.tag === "a" && element.name === "Design");
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === `/account/sites/${siteId}/design`);

    // The radio group takes one Tab stop (the checked one: the design the site was made with); the arrows move the choice.
    const start = await tabTo("the design gallery", (element) => element.type === "radio");
    expect(start.checked).toBe(true);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    const picked = await focused(page);
    expect(picked, "the arrows keep the focus in the gallery").toMatchObject({ type: "radio", checked: true, visible: true });
    expect(picked!.value).not.toBe(start.value);
    seen.push(picked!);
    await tabTo("the save button", (element) => element.tag === "button" && element.name === "Save the design");
    await page.keyboard.press("Space");
    await page.waitForURL((url) => url.pathname === `/account/sites/${siteId}/design` && url.searchParams.get("done") === "saved");
    expect(await page.locator(".notice.ok").innerText()).toContain("Saved.");
    // The screen is drawn again from the service's record: the chosen design is the one saved.
    expect(await page.locator(`input[name=design][value="${picked!.value}"]`).isChecked()).toBe(true);

    // Links, the text field, radios and buttons all took the focus on the way, each visibly.
    for (const kind of ["a", "input", "radio", "button"]) expect(seen.some((element) => (element.type === "radio" ? "radio" : element.tag) === kind), kind).toBe(true);
  }, 60_000);
});
