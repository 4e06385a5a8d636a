import { dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { rawWebSocket, startServerWithApps, type AppsInARealServer } from "../apps-in-a-real-server.js";

// The bare box's terminal (a WebSocket to Reposite itself, on the service's own host) through the
// nginx edge of a real `reposite serve`, as a browser opens it from the app screen.

const engine = await dockerForTests();

describe.skipIf(!engine.available)("the terminal through the nginx edge (REPOSITE_EDGE=nginx)", () => {
  let rig: AppsInARealServer;

  beforeAll(async () => {
    rig = await startServerWithApps({ box: true, env: { REPOSITE_EDGE: "nginx" } });
  }, 240_000);
  afterAll(async () => {
    // A clean stop takes the server's nginx with it (a kill would leave it on the port).
    await rig?.server.stop();
    await rig?.close();
  }, 60_000);

  it("opens the owner's shell from the service's own page, and still refuses another site's page (403)", async () => {
    const path = `/account/apps/${rig.boxId}/terminal`;
    const ws = new WebSocket(`ws://127.0.0.1:${rig.port}${path}`, { headers: rig.pageHeaders });
    let output = "";
    ws.on("message", (data: Buffer) => (output += data.toString("utf8")));
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject).once("unexpected-response", (_req, res) => reject(new Error(`answered ${res.statusCode}`))));
    ws.send(JSON.stringify({ type: "input", data: "echo through-ng''inx\r" }));
    await expect.poll(() => output, { timeout: 10_000 }).toContain("through-nginx");
    ws.close();

    const raw = await rawWebSocket(rig.port, path, { ...rig.pageHeaders, host: `127.0.0.1:${rig.port}` });
    expect(raw.status).toBe(101);
    raw.socket.destroy();
    // nginx refuses an HTTP/1.1 request without Host (RFC 9112), as `rawWebSocket` sends it unless told: that was the 400.
    const hostless = await rawWebSocket(rig.port, path, { ...rig.pageHeaders, host: null });
    expect(hostless.status).toBe(400);
    hostless.socket.destroy();
    const foreign = await rawWebSocket(rig.port, path, { ...rig.pageHeaders, host: `127.0.0.1:${rig.port}`, origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    foreign.socket.destroy();
  }, 60_000);
});
