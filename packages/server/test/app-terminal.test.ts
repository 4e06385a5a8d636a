import { dockerForTests } from "@reposite/test-support";
import type WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSocket, startScreenRig, type ScreenRig, type SocketAttempt } from "./app-screen/screen-rig.js";
import { DeploymentStore } from "@reposite/core";

const engine = await dockerForTests();

/** Collects what a terminal socket sends; `waitFor` resolves once the output contains `text`. */
function screenOf(ws: WebSocket) {
  let output = "";
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on("message", (data: Buffer, isBinary) => {
    expect(isBinary).toBe(true);
    output += data.toString("utf8");
  });
  return {
    closed,
    output: () => output,
    type: (text: string) => ws.send(JSON.stringify({ type: "input", data: text })),
    waitFor: (text: string) => expect.poll(() => output, { timeout: 10_000 }).toContain(text),
  };
}

const opened = (attempt: SocketAttempt): WebSocket => {
  if (!("ws" in attempt)) throw new Error(`refused: ${attempt.status} ${JSON.stringify(attempt.body)}`);
  return attempt.ws;
};

describe.skipIf(!engine.available)("the bare box's terminal over a WebSocket, on the engine", () => {
  let rig: ScreenRig;
  let owner: Awaited<ReturnType<ScreenRig["person"]>>;
  let siteId: string;
  let path: string;
  let origin: Record<string, string>;

  beforeAll(async () => {
    rig = await startScreenRig();
    owner = await rig.person();
    siteId = await rig.h.project(owner.accountId, "terminal-box", { "README.md": "a box\n" });
    const { job } = await rig.h.deploy(owner.accountId, siteId, { build_mode: "bare", base_image: "alpine:3.20" });
    expect(job.status).toBe("done");
    path = `/account/apps/${siteId}/terminal`;
    origin = { origin: rig.url };
  }, 120_000);
  afterAll(() => rig?.close());

  const containerId = async () => (await rig.h.reposite.container.resolve(DeploymentStore).get(siteId))!.container!.id;
  const processes = async () => (await rig.h.runtime.exec!(await containerId(), ["ps", "-o", "args"])).output;

  it("runs a shell for the owner: echo, resize, and closing the socket ends what the shell started", async () => {
    const ws = opened(await openSocket(rig.url, `${path}?cols=90&rows=30`, { ...origin, cookie: owner.cookie }));
    const screen = screenOf(ws);
    // The quotes keep the typed line (echoed back by the terminal) from containing the answer.
    screen.type("echo hel''lo\r");
    await screen.waitFor("hello\r\n");
    screen.type("stty size\r");
    await screen.waitFor("30 90");
    ws.send(JSON.stringify({ type: "resize", cols: 120, rows: 40 }));
    screen.type("stty size\r");
    await screen.waitFor("40 120");
    screen.type("sleep 4242\r");
    await expect.poll(processes, { timeout: 5_000 }).toContain("sleep 4242");
    expect(rig.h.reposite.appTerminal.openCount(siteId)).toBe(1);

    ws.close();
    await expect.poll(processes, { timeout: 10_000 }).not.toContain("sleep 4242");
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
  });

  it("closes the socket when the shell ends", async () => {
    const ws = opened(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie }));
    const screen = screenOf(ws);
    screen.type("exit\r");
    expect(await screen.closed).toEqual({ code: 1000, reason: "The shell ended." });
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
  });

  it("closes the socket and the shell on a message that is not one of the two", async () => {
    for (const bad of ["not json", JSON.stringify({ type: "input", data: 42 }), JSON.stringify({ type: "run" }), Buffer.from("binary")]) {
      const ws = opened(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie }));
      const screen = screenOf(ws);
      await screen.waitFor("#"); // the prompt: the shell is up
      ws.send(bad);
      const { code, reason } = await screen.closed;
      expect(code).toBe(1007);
      expect(reason).toContain("{type:'input',data}");
      await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
    }
  });

  it("refuses before the upgrade: no session, a token, another site's page, another account, a missing project", async () => {
    const other = await rig.person();
    const { secret: token } = await rig.h.reposite.tokens.create(owner.accountId, { name: "cli", lifetime: "30d" });
    const cases: [Record<string, string>, string, number, string][] = [
      [origin, path, 401, "session_required"],
      [{ ...origin, authorization: `Bearer ${token}` }, path, 403, "session_required"],
      // A token with the owner's cookie too is still a program, not the owner's page.
      [{ ...origin, cookie: owner.cookie, authorization: `Bearer ${token}` }, path, 403, "session_required"],
      [{ origin: "http://evil.example", cookie: owner.cookie }, path, 403, "cross_site_request"],
      [{ origin: rig.url.replace("127.0.0.1", "localhost"), cookie: owner.cookie }, path, 403, "cross_site_request"],
      [{ cookie: owner.cookie }, path, 403, "cross_site_request"],
      [{ ...origin, cookie: other.cookie }, path, 404, "not_found"],
      [{ ...origin, cookie: owner.cookie }, "/account/apps/site_nothere/terminal", 404, "not_found"],
      [{ ...origin, cookie: owner.cookie }, "/account/apps/%E0%A4%A/terminal", 404, "not_found"],
    ];
    for (const [headers, target, status, code] of cases) {
      const attempt = await openSocket(rig.url, target, headers);
      expect(attempt, JSON.stringify(headers)).toMatchObject({ status, ...(code === "not_found" ? {} : { body: { code } }) });
    }
    expect(rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
  });

  it("refuses an app that is not a bare box, and a box that is not running; stopping the box closes its terminals", async () => {
    const appSite = await rig.h.project(owner.accountId, "terminal-app", { Dockerfile: "FROM scratch\n" });
    await rig.h.reposite.hosting.setup(owner.accountId, appSite, { build_mode: "dockerfile" });
    expect(await openSocket(rig.url, `/account/apps/${appSite}/terminal`, { ...origin, cookie: owner.cookie })).toMatchObject({ status: 409, body: { code: "not_bare" } });

    // Stopping the box ends the shell open in it, and its socket.
    const before = screenOf(opened(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie })));
    await before.waitFor("#");
    await rig.h.reposite.hosting.stop(owner.accountId, siteId);
    expect(await before.closed).toEqual({ code: 1000, reason: "The shell ended." });
    expect(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie })).toMatchObject({ status: 409, body: { code: "app_not_running" } });
    await rig.h.reposite.hosting.start(owner.accountId, siteId);
    const ws = opened(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie }));
    await screenOf(ws).waitFor("#");
    ws.close();
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
  });

  it("holds an app to four terminals at once", async () => {
    const open = await Promise.all([1, 2, 3, 4].map(async () => opened(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie }))));
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(4);
    expect(await openSocket(rig.url, path, { ...origin, cookie: owner.cookie })).toMatchObject({ status: 429, body: { code: "too_many_terminals" } });
    for (const ws of open) ws.close();
    await expect.poll(() => rig.h.reposite.appTerminal.openCount(siteId)).toBe(0);
  });
});
