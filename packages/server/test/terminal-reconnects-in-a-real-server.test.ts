import { docker, dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startServerWithApps, type AppsInARealServer } from "./apps-in-a-real-server.js";
import { startHeldEngine, type HeldEngine } from "./held-engine.js";

// A visitor who reloads the app screen quickly leaves before the engine has opened the shell it
// asked for. Those half-opened terminals must not hold the box's four slots: a `reposite serve`
// on the real Engine, with the Engine's terminal execs held back until the test lets them go, so
// "before the terminal is ready" is an order, not a guess about timing.

const engine = await dockerForTests();

/** Opens the terminal's WebSocket; rejects with the status and body when the upgrade is refused. */
function openTerminal(port: number, path: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => reject(new Error(`refused: ${res.statusCode} ${body}`)));
    });
  });
}

const closeAndWait = (ws: WebSocket) =>
  new Promise<void>((resolve) => {
    ws.once("close", () => resolve());
    ws.close();
  });

describe.skipIf(!engine.available)("terminals a visitor left while they opened, in a real server", () => {
  let held: HeldEngine;
  let rig: AppsInARealServer;

  beforeAll(async () => {
    held = await startHeldEngine();
    rig = await startServerWithApps({ box: true, env: { DOCKER_HOST: held.dockerHost } });
  }, 240_000);
  afterAll(async () => {
    await rig?.close();
    await held?.close();
  }, 60_000);

  /** Processes in the box that a terminal started (each carries its terminal's mark in its env). */
  const terminalProcesses = async () => {
    const { stdout: id } = await docker(["ps", "-q", "--filter", `label=dev.reposite.site=${rig.boxId}`]);
    const { stdout } = await docker(["exec", id.trim(), "sh", "-c", "grep -l REPOSITE_TERMINAL_SESSION /proc/[0-9]*/environ 2>/dev/null; true"]);
    return stdout.split("\n").filter(Boolean).length;
  };

  it("frees the slot of a terminal whose visitor left before it opened: after five quick reconnects a sixth gets its shell", async () => {
    const path = `/account/apps/${rig.boxId}/terminal`;
    held.hold();
    let sixth: WebSocket;
    try {
      for (let visit = 1; visit <= 5; visit++) {
        // Today's bug: each of these kept a slot until the Engine answered, so the fifth met 429.
        const ws = await openTerminal(rig.port, path, rig.pageHeaders);
        await expect.poll(() => held.waiting(), { timeout: 10_000 }).toBe(visit); // its shell is being opened
        await closeAndWait(ws);
      }
      sixth = await openTerminal(rig.port, path, rig.pageHeaders);
      await expect.poll(() => held.waiting(), { timeout: 10_000 }).toBe(6);
    } finally {
      held.release();
    }

    let output = "";
    sixth.on("message", (data: Buffer) => (output += data.toString("utf8")));
    // The quotes keep the typed line (echoed back by the terminal) from containing the answer.
    sixth.send(JSON.stringify({ type: "input", data: "echo sixth-sh''ell\r" }));
    await expect.poll(() => output, { timeout: 10_000 }).toContain("sixth-shell");
    // The five shells the Engine opened after their visitors had left were closed: only the sixth's runs.
    await expect.poll(terminalProcesses, { timeout: 15_000 }).toBe(1);

    await closeAndWait(sixth);
    await expect.poll(terminalProcesses, { timeout: 15_000 }).toBe(0);
  }, 90_000);
});
