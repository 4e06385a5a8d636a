import { dockerForTests, getWithHost, launchBrowser } from "@reposite/test-support";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScreenRig, type ScreenRig } from "../app-screen/screen-rig.js";
import { dashboardChecks } from "./dashboard-checks.js";

// REPOSITE_REQUIRE_DOCKER=1 makes a missing Engine fail this file instead of skipping it.
const engine = await dockerForTests();

/**
 * The App screen in Chromium, on a real listening server whose apps run on the Docker Engine:
 * an app set up and deployed from the screen with its build log streaming in, its failure
 * diagnosed and fixed by the Fix button, an env value set (and never shown back), a restart, the
 * output, metrics and their charts, and the delete.
 */
describe.skipIf(!engine.available)("the App screen in Chromium, on the engine", () => {
  let rig: ScreenRig;
  let browser: Browser;
  let owner: Awaited<ReturnType<ScreenRig["person"]>>;
  let other: Awaited<ReturnType<ScreenRig["person"]>>;
  let site: string;
  let screen: string;

  /** A browser profile signed in with `person`'s session cookie. */
  const pageOf = async (person: { secret: string }, width = 1280): Promise<Page> => {
    const context = await browser.newContext({ baseURL: rig.url, viewport: { width, height: 900 } });
    await context.addCookies([{ name: "reposite_session", value: person.secret, url: rig.url, httpOnly: true, sameSite: "Lax" }]);
    return context.newPage();
  };
  const notice = (page: Page) => page.locator("main .notice.ok").first().innerText();

  beforeAll(async () => {
    // A failed health check ends in 10 s here (not a minute): the failure is what the test is after; a
    // working app gets enough time to start on a loaded CI machine.
    rig = await startScreenRig({ hosting: { healthTimeoutMs: 10_000 } });
    browser = await launchBrowser();
    owner = await rig.person();
    other = await rig.person();
    const { h } = rig;
    // Listens on 8080 whatever PORT says: the first deploy fails (nothing on 3000), and the
    // diagnosis finds 8080, which the Fix sets as the port. It answers with its GREETING.
    site = await h.project(owner.accountId, "dash-app", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "COPY server.js /app/server.js", 'CMD ["node", "/app/server.js"]', ""].join("\n"),
      "server.js":
        "require('node:http').createServer((q, s) => s.end('greeting=' + (process.env.GREETING || 'none'))).listen(8080, () => console.log('dash-app listening on 8080'));\n",
      // The settings the repository check finds: the app's own address, a secret to generate, a vendor's key.
      ".env.example": "APP_URL=http://localhost:3000\nSESSION_SECRET=\nSTRIPE_SECRET_KEY=\n",
    });
    screen = `/account/sites/${site}/app`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  }, 60_000);

  it("sets up and deploys watching the build log; the failure's diagnosis and Fix make it run; env set is never shown back; restart; output and charts", async () => {
    const page = await pageOf(owner);
    expect((await page.goto(screen))?.status()).toBe(200);
    expect(await page.getByText("This site has no app yet.").isVisible()).toBe(true);
    await dashboardChecks(page, "app-new");

    // The repository check: what would be built.
    await page.getByRole("button", { name: "Check the repository" }).click();
    await expect.poll(() => page.locator("#check-result").innerText()).toContain("A Dockerfile is there");

    // A refused field comes back with the contract's message and what was typed.
    await page.getByLabel("Port").fill("70000");
    const refused = page.waitForResponse((answer) => answer.request().method() === "POST");
    await page.getByRole("button", { name: "Save setup" }).click();
    expect((await refused).status()).toBe(422);
    await expect.poll(() => page.getByRole("alert").innerText()).toContain("must be a whole number from 1 to 65535");
    expect(await page.getByLabel("Port").inputValue()).toBe("70000");

    await page.getByLabel("Port").fill("3000");
    await page.getByLabel("Health path").fill("/");
    await page.getByLabel("Volume").fill("/data");
    await page.getByRole("button", { name: "Save setup" }).click();
    await expect.poll(() => notice(page)).toContain("The setup was saved");
    expect(await page.locator("#app-status").innerText()).toBe("Set up, never deployed");

    // The settings the app asks for: the address filled in, a secret generated here, a vendor's key left for later.
    await page.getByRole("button", { name: "Check the repository" }).click();
    const appUrl = (await rig.h.reposite.hosting.read(owner.accountId, site)).url.replace(/\/+$/, "");
    const setting = (name: string) => page.getByRole("textbox", { name: new RegExp(`^${name} `) });
    await expect.poll(() => setting("APP_URL").inputValue()).toBe(appUrl);
    expect(await page.getByLabel(/^STRIPE_SECRET_KEY /).getAttribute("type")).toBe("password");
    await page.getByRole("button", { name: "Generate a value for SESSION_SECRET" }).click();
    const generated = await setting("SESSION_SECRET").inputValue();
    expect(generated).toMatch(/^[\w-]{43}$/);
    await page.getByRole("button", { name: "Save these settings" }).click();
    await expect.poll(() => notice(page)).toContain("values are never shown again");
    expect(await page.locator("#env-keys code").allInnerTexts()).toEqual(["APP_URL", "SESSION_SECRET"]);
    expect(await page.content()).not.toContain(generated);

    // Deploy: the build log streams in while the run is under way, then the page shows how it ended.
    await page.getByRole("button", { name: "Deploy now" }).click();
    const log = page.locator("#build-log");
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).toMatch(/\S/);
    expect(await page.locator("#build-state").innerText()).toBe("Following the run …");
    await expect.poll(() => new URL(page.url()).searchParams.has("ended"), { timeout: 60_000 }).toBe(true);
    const failed = await rig.h.reposite.hosting.read(owner.accountId, site);
    expect(failed.last_run).toMatchObject({ status: "failed", diagnosis: { kind: "not_listening" } });
    await expect.poll(() => page.getByRole("heading", { name: failed.last_run!.diagnosis!.title }).isVisible()).toBe(true);
    expect(await page.locator("#diagnosis-fix").innerText()).toContain(failed.last_run!.diagnosis!.fix);
    expect(await page.locator("#app-status").innerText()).toBe("Failed");
    await dashboardChecks(page, "app-failed");

    // Fix: the rules set port 8080 and deploy it; its log streams in and the app runs.
    await page.getByRole("button", { name: "Fix it" }).click();
    await expect.poll(() => log.innerText(), { timeout: 60_000 }).toContain("set port to 8080");
    await expect.poll(() => page.locator("#app-status").innerText(), { timeout: 90_000 }).toBe("Running");
    expect(await page.getByLabel("Port").inputValue()).toBe("8080");
    expect(await page.locator("#runs tbody tr").count()).toBe(2);
    const slug = (await rig.h.reposite.hosting.read(owner.accountId, site)).slug!;
    const answer = () => getWithHost(`${rig.url}/app/`, `${slug}.sites.example`).then((reply) => reply.body, () => "");
    expect(await answer()).toBe("greeting=none");

    // Output and metrics come by themselves; the charts draw from the readings.
    await expect.poll(() => page.locator("#app-log").innerText(), { timeout: 15_000 }).toContain("dash-app listening on 8080");
    await expect.poll(() => page.locator("#app-metrics").innerText(), { timeout: 15_000 }).toMatch(/Memory\s+\d+ MB of \d+ MB/);
    await expect.poll(() => page.locator("#chart-memory polyline").count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator("#chart-memory").getAttribute("aria-label")).toMatch(/^Memory over the last \d+ readings: now \d+\.\d MB/);

    // An env value: saved, the app restarts with it, and the value is never in a page again.
    await page.getByLabel("Name", { exact: true }).fill("GREETING");
    await page.getByLabel("Value", { exact: true }).fill("hello-secret-77");
    await page.getByRole("button", { name: "Save value" }).click();
    await expect.poll(() => notice(page)).toContain("values are never shown again");
    expect(await page.locator("#env-keys code").allInnerTexts()).toEqual(["APP_URL", "GREETING", "SESSION_SECRET"]);
    await expect.poll(answer, { timeout: 60_000 }).toBe("greeting=hello-secret-77");
    await page.reload();
    expect(await page.content()).not.toContain("hello-secret-77");
    expect(await page.getByLabel("Value", { exact: true }).inputValue()).toBe("");

    // Restart: a new container with the same image and env.
    await page.getByRole("button", { name: "Restart" }).click();
    await expect.poll(() => notice(page), { timeout: 60_000 }).toContain("The app was restarted.");
    expect(await page.locator("#app-status").innerText()).toBe("Running");
    expect(await answer()).toBe("greeting=hello-secret-77");
    // Stop and start again.
    await page.getByRole("button", { name: "Stop", exact: true }).click();
    await expect.poll(() => notice(page), { timeout: 60_000 }).toContain("The app was stopped.");
    expect(await page.locator("#app-status").innerText()).toBe("Stopped");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(() => notice(page), { timeout: 60_000 }).toContain("The app was started.");
    expect(await page.locator("#app-status").innerText()).toBe("Running");

    // Reset data asks for the slug typed out; a wrong one is the operation's own refusal.
    await page.getByLabel(`Type ${slug} to confirm`).fill("not-the-slug");
    const mismatch = page.waitForResponse((reply) => reply.request().method() === "POST");
    await page.getByRole("button", { name: "Reset data" }).click();
    expect((await mismatch).status()).toBe(422);
    await expect.poll(() => page.getByRole("alert").innerText()).toContain(slug);
    await page.getByLabel(`Type ${slug} to confirm`).fill(slug);
    await page.getByRole("button", { name: "Reset data" }).click();
    await expect.poll(() => notice(page), { timeout: 60_000 }).toContain("The data was emptied");
    expect(await page.locator("#app-status").innerText()).toBe("Running");

    await expect.poll(() => page.locator("#chart-cpu polyline").count(), { timeout: 15_000 }).toBe(1);
    await dashboardChecks(page, "app-running");
    await page.context().close();
  }, 300_000);

  it("another account gets 404 for the screen and its forms; a token gets 403 session_required; the old address leads here", async () => {
    const stranger = await pageOf(other);
    expect((await stranger.goto(screen))?.status()).toBe(404);
    expect(await stranger.getByRole("heading", { name: "Not found" }).isVisible()).toBe(true);
    await stranger.context().close();
    const csrf = (await rig.h.reposite.sessions.find(other.secret))!.session.csrf;
    for (const action of ["deploy", "env", "delete", "restart"]) {
      const posted = await fetch(`${rig.url}${screen}/${action}`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: other.cookie, origin: rig.url, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, name: "X", value: "y", confirm: "yes" }),
      });
      expect(posted.status, action).toBe(404);
    }
    const { secret: token } = await rig.h.reposite.tokens.create(owner.accountId, { name: "cli", lifetime: "30d" });
    const withToken = await fetch(`${rig.url}${screen}`, { headers: { authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(403);
    expect(await withToken.text()).toContain("session_required");
    // The job stream the screen follows: the session's, resumed after Last-Event-ID; a job under another site, another account or a token gets none.
    const jobId = (await rig.h.reposite.hosting.listRuns(owner.accountId, site)).at(-1)!.job_id!;
    const stream = (path: string, headers: Record<string, string>) => fetch(`${rig.url}${path}`, { headers });
    const resumed = await stream(`${screen.replace("/app", "")}/jobs/${jobId}/stream`, { cookie: owner.cookie, "last-event-id": "0" });
    expect(resumed.headers.get("content-type")).toBe("text/event-stream");
    const frames = await resumed.text();
    expect(frames).toMatch(/^event: meta\n/);
    expect(frames).not.toContain("\nid: 0\n");
    expect(frames).toContain("\nid: 1\n");
    expect(frames).toMatch(/event: error\n/);
    const elsewhere = await rig.h.project(owner.accountId, "dash-app");
    expect((await stream(`/account/sites/${elsewhere}/jobs/${jobId}/stream`, { cookie: owner.cookie })).status).toBe(404);
    expect((await stream(`/account/sites/${site}/jobs/${jobId}/stream`, { cookie: other.cookie })).status).toBe(404);
    expect((await stream(`/account/sites/${site}/jobs/${jobId}/stream`, { authorization: `Bearer ${token}` })).status).toBe(403);
    expect((await stream(`/account/sites/${site}/jobs/${jobId}/stream`, {})).status).toBe(401);

    const old = await fetch(`${rig.url}/account/apps/${site}`, { headers: { cookie: owner.cookie }, redirect: "manual" });
    expect(old.status).toBe(303);
    expect(old.headers.get("location")).toBe(screen);
    expect(await rig.h.reposite.hosting.read(owner.accountId, site)).toMatchObject({ status: "running", env_keys: ["APP_URL", "GREETING", "SESSION_SECRET"] });
  });

  it("deletes the app after the box is ticked; the site stays", async () => {
    const page = await pageOf(owner);
    await page.goto(screen);
    await page.getByLabel("Delete this app and its data").check();
    await page.getByRole("button", { name: "Delete the app" }).click();
    await expect.poll(() => notice(page), { timeout: 60_000 }).toContain("The app was deleted");
    expect(await page.getByText("This site has no app yet.").isVisible()).toBe(true);
    await expect(rig.h.reposite.hosting.read(owner.accountId, site)).rejects.toMatchObject({ code: "not_configured" });
    expect((await rig.h.reposite.projects.get(owner.accountId, site)).id).toBe(site);
    await page.context().close();
  }, 120_000);
});
