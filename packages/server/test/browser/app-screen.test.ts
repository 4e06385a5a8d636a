import { createServer, type Server } from "node:http";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { dockerForTests, freePort, launchBrowser } from "@reposite/test-support";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScreenRig, type ScreenRig } from "../app-screen/screen-rig.js";
import { SCREENSHOT_DIR } from "./setup.js";

const engine = await dockerForTests();

describe.skipIf(!engine.available)("an app's screen in Chromium, on the engine", () => {
  let rig: ScreenRig;
  let browser: Browser;
  let owner: Awaited<ReturnType<ScreenRig["person"]>>;
  let other: Awaited<ReturnType<ScreenRig["person"]>>;
  let brokenSite: string;
  let boxSite: string;

  /** A browser profile signed in with `person`'s session cookie. */
  const pageOf = async (person: { secret: string }): Promise<Page> => {
    const context = await browser.newContext({ baseURL: rig.url, viewport: { width: 1000, height: 900 } });
    await context.addCookies([{ name: "reposite_session", value: person.secret, url: rig.url, httpOnly: true, sameSite: "Lax" }]);
    return context.newPage();
  };

  beforeAll(async () => {
    rig = await startScreenRig();
    browser = await launchBrowser();
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    owner = await rig.person();
    other = await rig.person();
    const { h } = rig;
    brokenSite = await h.project(owner.accountId, "screen-broken", { Dockerfile: `FROM ${h.images.busybox}\n${h.label}\nRUN echo preparing && exit 3\n` });
    await h.reposite.hosting.setup(owner.accountId, brokenSite, {});
    await h.reposite.hosting.setEnv(owner.accountId, brokenSite, { env: { API_SECRET: "value-never-shown-42" } });
    boxSite = await h.project(owner.accountId, "screen-box", { "README.md": "a box\n" });
    // One deploy per account at a time.
    const broken = await h.deploy(owner.accountId, brokenSite);
    const box = await h.deploy(owner.accountId, boxSite, { build_mode: "bare", base_image: "alpine:3.20" });
    expect(broken.job.status).toBe("error");
    expect(box.job.status).toBe("done");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it("shows a failed run's diagnosis, the runs and the env's names (never a value); the Fix button asks the fixer", async () => {
    const page = await pageOf(owner);
    // Reached from the account's navigation: Apps, then the app.
    expect((await page.goto("/account"))?.status()).toBe(200);
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Apps" }).click();
    await page.getByRole("link", { name: "screen-broken" }).click();
    // The app's screen is its site's App screen in the dashboard.
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/account/sites/${brokenSite}/app`);
    await expect.poll(() => page.getByRole("heading", { name: "screen-broken" }).isVisible()).toBe(true);
    const { last_run } = await rig.h.reposite.hosting.read(owner.accountId, brokenSite);
    expect(last_run?.status).toBe("failed");
    const diagnosis = last_run!.diagnosis!;
    expect(diagnosis.kind).toBe("build_step_failed");
    expect(await page.getByRole("heading", { name: diagnosis.title }).isVisible()).toBe(true);
    const main = await page.locator("main").innerText();
    expect(main).toContain(diagnosis.detail);
    expect(main).toContain(diagnosis.fix);
    expect(await page.locator("#app-status").innerText()).toBe("Failed");
    expect(await page.locator("#runs tbody tr").count()).toBe(1);
    expect(await page.locator("#runs tbody tr").innerText()).toContain(last_run!.run_id);
    expect(await page.locator("#env-keys code").allInnerTexts()).toEqual(["API_SECRET"]);
    expect(await page.content()).not.toContain("value-never-shown-42");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "app-screen-failed.png"), fullPage: true });

    // No model on this server and no rule for a failing RUN step: the fixer says so on the screen.
    await page.getByRole("button", { name: "Fix it" }).click();
    await page.waitForLoadState();
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.isVisible()).toBe(true);
    expect(await alert.innerText()).toContain("No language model is configured on this server");
    expect(await page.getByRole("heading", { name: diagnosis.title }).isVisible()).toBe(true);
    await page.context().close();
  });

  it("opens a shell in a bare box: echo hello shows hello; the app's output and metrics come live", async () => {
    const page = await pageOf(owner);
    await page.goto(`/account/apps/${boxSite}`);
    await expect.poll(() => page.locator("#app-status").innerText()).toBe("Running");
    await expect.poll(() => page.locator("#app-metrics").innerText(), { timeout: 10_000 }).toMatch(/Memory\s+\d+ MB of \d+ MB/);

    await page.getByRole("button", { name: "Open terminal" }).click();
    await expect.poll(() => page.locator("#terminal-state").innerText()).toBe("Connected.");
    const rows = page.locator("#terminal .xterm-rows");
    await expect.poll(() => rows.innerText(), { timeout: 10_000 }).toContain("#");
    await page.keyboard.type("echo hel''lo");
    await page.keyboard.press("Enter");
    const lines = async () => (await rows.innerText()).split("\n").map((line) => line.trim());
    await expect.poll(lines, { timeout: 10_000 }).toContain("hello");

    // A narrower window: the page fits the terminal to it and the shell is told the new size.
    const sizes = async () => (await lines()).filter((line) => /^\d+ \d+$/.test(line));
    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await sizes()).length).toBe(1);
    const [, wide] = (await sizes())[0]!.split(" ").map(Number);
    await page.setViewportSize({ width: 600, height: 900 });
    await page.keyboard.type("stty size");
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await sizes()).length).toBe(2);
    const [, narrow] = (await sizes())[1]!.split(" ").map(Number);
    expect(narrow).toBeLessThan(wide! - 20);
    await page.setViewportSize({ width: 1000, height: 900 });

    // What the box writes to its own output (PID 1's stdout) reaches the output panel by itself.
    await page.keyboard.type("echo log-mar''ker > /proc/1/fd/1");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#app-log").innerText(), { timeout: 10_000 }).toContain("log-marker");
    await page.screenshot({ path: join(SCREENSHOT_DIR, "app-screen-terminal.png"), fullPage: true });

    // Leaving the page closes the socket, and the shell with it.
    expect(rig.h.reposite.appTerminal.openCount(boxSite)).toBe(1);
    await page.context().close();
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(boxSite), { timeout: 10_000 }).toBe(0);
  });

  it("another account gets 404 for the page and cannot open the terminal; neither can another origin's page with the owner's cookie", async () => {
    const stranger = await pageOf(other);
    expect((await stranger.goto(`/account/apps/${boxSite}`))?.status()).toBe(404);
    expect(await stranger.getByRole("heading", { name: "Not found" }).isVisible()).toBe(true);
    // From the service's own origin, on the stranger's own app screen (its policy allows the socket), with their session.
    const theirs = await rig.h.project(other.accountId, "screen-theirs", { "README.md": "theirs\n" });
    await rig.h.reposite.hosting.setup(other.accountId, theirs, {});
    await stranger.goto(`/account/apps/${theirs}`);
    expect(await tryTerminal(stranger, `/account/apps/${theirs}/terminal`)).toBe("refused"); // not a bare box (409)
    expect(await tryTerminal(stranger, `/account/apps/${boxSite}/terminal`)).toBe("refused");
    await stranger.context().close();

    // A page on another port of the same host is same-site, so the browser sends the owner's Lax cookie: the Origin check refuses it.
    const evil = await servePage(`<!doctype html><title>evil</title><p>hello</p>`);
    const page = await pageOf(owner);
    await page.goto(`${evil.url}/`);
    expect(await tryTerminal(page, `${rig.url.replace("http", "ws")}/account/apps/${boxSite}/terminal`)).toBe("refused");
    // The owner's own page, same browser: opens.
    await page.goto(`/account/apps/${boxSite}`);
    expect(await tryTerminal(page, `/account/apps/${boxSite}/terminal`)).toBe("open");
    await page.context().close();
    await new Promise<void>((resolve) => evil.server.close(() => resolve()));
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(boxSite), { timeout: 10_000 }).toBe(0);
  });

  it("serves the screen's reads to the owner's session only, and its assets from this server", async () => {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${rig.url}${path}`, { headers, redirect: "manual" });
    const { secret: token } = await rig.h.reposite.tokens.create(owner.accountId, { name: "cli", lifetime: "30d" });
    // Signed out: the page sends to sign-in; the script's reads answer 401.
    const signedOut = await get(`/account/apps/${boxSite}`);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("location")).toBe(`/account?next=${encodeURIComponent(`/account/apps/${boxSite}`)}`);
    expect(await (await get(`/account/apps/${boxSite}/logs`)).json()).toMatchObject({ code: "session_required" });
    // A token, even the owner's, is refused everywhere on the screen.
    for (const path of [`/account/apps/${boxSite}`, `/account/apps/${boxSite}/logs`, `/account/apps/${boxSite}/metrics`]) {
      const answer = await get(path, { authorization: `Bearer ${token}` });
      expect(answer.status, path).toBe(403);
      expect(await answer.json()).toMatchObject({ code: "session_required" });
    }
    // Another account: 404 for every read.
    for (const path of [`/account/apps/${boxSite}/logs`, `/account/apps/${boxSite}/metrics`, `/account/apps/site_nothere`]) {
      expect((await get(path, { cookie: other.cookie })).status, path).toBe(404);
    }
    expect((await get("/account/apps/%E0%A4%A", { cookie: other.cookie })).status).toBe(400); // h3: the path does not decode
    // The owner: text logs, JSON metrics, a 422 for a bad tail.
    const logs = await get(`/account/apps/${boxSite}/logs?tail=5`, { cookie: owner.cookie });
    expect(logs.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect((await get(`/account/apps/${boxSite}/logs?tail=lots`, { cookie: owner.cookie })).status).toBe(422);
    expect(await (await get(`/account/apps/${boxSite}/metrics`, { cookie: owner.cookie })).json()).toMatchObject({ running: true, memory: { limit_mb: 512 } });
    // The old address leads to the dashboard's App screen, whose policy allows scripts from this server's asset folders only, sockets back to here only.
    const old = await get(`/account/apps/${boxSite}`, { cookie: owner.cookie });
    expect([old.status, old.headers.get("location")]).toEqual([303, `/account/sites/${boxSite}/app`]);
    const page = await get(`/account/sites/${boxSite}/app`, { cookie: owner.cookie });
    expect(page.headers.get("content-security-policy")).toContain(
      `script-src ${rig.url}/dashboard/assets/ ${rig.url}/account/assets/; style-src 'self' 'unsafe-inline'; img-src 'self'; connect-src 'self' ${rig.url.replace("http", "ws")}`,
    );
    expect(await page.text()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|screen-box\.sites\.example)/);
    const xterm = await get("/account/assets/xterm.mjs");
    expect(xterm.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await xterm.text()).toContain("export{");
    for (const name of ["nope.js", "..%2Fpackage.json", "xterm.mjs.map"]) expect((await get(`/account/assets/${name}`)).status, name).toBe(404);
  });
});

/** Opens a WebSocket from the page: "open" when it opened (then closes it), "refused" when it closed first. */
function tryTerminal(page: Page, target: string): Promise<string> {
  return page.evaluate(
    (address) =>
      new Promise<string>((resolve) => {
        const url = address.startsWith("/") ? `ws://${location.host}${address}` : address;
        const socket = new WebSocket(url);
        socket.onopen = () => {
          socket.close();
          resolve("open");
        };
        socket.onclose = () => resolve("refused");
      }),
    target,
  );
}

/** A page on another port of 127.0.0.1: another origin, the same site. */
async function servePage(body: string): Promise<{ server: Server; url: string }> {
  const port = await freePort();
  const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(body));
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return { server, url: `http://127.0.0.1:${port}` };
}
