import { execFile } from "node:child_process";
import { connect } from "node:net";
import { request } from "node:http";
import { dockerForTests, getWithHost } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from "../src/start-server.js";
import { rawWebSocket, startServerWithApps, type AppsInARealServer } from "./apps-in-a-real-server.js";

// SIGTERM to a real `reposite serve` while an app on the engine holds proxied connections open
// (a response it never ends, a WebSocket it never closes, half-open after the visitor's FIN) and
// a keep-alive connection idles: requests under way finish, the rest is closed, and the process
// exits within REPOSITE_SHUTDOWN_TIMEOUT_SECONDS. Then it is started again on the same data: the app
// it left running serves again, as after a kill -9.

const engine = await dockerForTests();
// The same proof with nginx in front (REPOSITE_EDGE=nginx): SIGTERM stops nginx gracefully alongside Node, within the same bound.
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (engine.required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");
const SHAPES: ("node" | "nginx")[] = nginxHere ? ["node", "nginx"] : ["node"];

describe("REPOSITE_SHUTDOWN_TIMEOUT_SECONDS", () => {
  it("defaults to 10 s, takes whole seconds, and refuses anything else with a message naming it", () => {
    expect(settingsFromEnv({}).shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS).toBe(10_000);
    expect(settingsFromEnv({ REPOSITE_SHUTDOWN_TIMEOUT_SECONDS: "30" }).shutdownTimeoutMs).toBe(30_000);
    for (const bad of ["0", "-1", "2.5", "ten"]) {
      expect(() => settingsFromEnv({ REPOSITE_SHUTDOWN_TIMEOUT_SECONDS: bad })).toThrow(`REPOSITE_SHUTDOWN_TIMEOUT_SECONDS must be a whole number of at least 1, not "${bad}"`);
    }
  });
});

const SHUTDOWN_SECONDS = 4;

describe.skipIf(!engine.available).each(SHAPES)("SIGTERM with connections an app never closes (edge: %s)", (shape) => {
  let rig: AppsInARealServer;

  beforeAll(async () => {
    rig = await startServerWithApps({ env: { REPOSITE_SHUTDOWN_TIMEOUT_SECONDS: String(SHUTDOWN_SECONDS), ...(shape === "nginx" ? { REPOSITE_EDGE: "nginx" } : {}) } });
  }, 240_000);
  afterAll(() => rig?.close(), 60_000);

  it(`exits within ${SHUTDOWN_SECONDS} s, after letting a request under way finish`, async () => {
    const { server, appHost, port } = rig;
    // A response the app never ends: the first event arrives, the rest never does.
    const held = await new Promise<{ ended: Promise<void> }>((resolve, reject) => {
      const req = request(`${server.url}/app/hold`, { headers: { host: appHost } }, (res) => {
        const ended = new Promise<void>((done) => res.once("close", () => done()));
        res.once("data", () => resolve({ ended }));
      });
      req.on("error", () => undefined);
      req.once("error", reject);
      req.end();
    });
    // A WebSocket the app never answers nor closes, half-closed by the visitor.
    const halfOpen = await rawWebSocket(port, "/app/ws-hold", { host: appHost });
    expect(halfOpen.status).toBe(101);
    halfOpen.socket.end();
    // An idle keep-alive connection.
    const idle = connect(port, "127.0.0.1");
    idle.on("error", () => undefined);
    idle.resume();
    idle.write(`GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    const idleClosed = new Promise<void>((done) => idle.once("close", () => done()));
    // A normal request under way when the signal comes: the app answers after 1.5 s.
    const slow = getWithHost(`${server.url}/app/slow?ms=1500`, appHost);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const code = await server.exited;
    const took = Date.now() - signalled;
    console.log(`[shutdown.test] SIGTERM to exit: ${took} ms`);

    expect(code, server.output().stderr).toBe(0);
    expect(took).toBeLessThan(SHUTDOWN_SECONDS * 1000);
    expect(server.output().stdout).toContain("Received SIGTERM, shutting down.");
    expect(await slow).toEqual({ status: 200, body: "slow answer done" });
    const states = await Promise.all(
      [held.ended, idleClosed, halfOpen.closed].map((closed) => Promise.race([closed.then(() => "closed"), new Promise((resolve) => setTimeout(() => resolve("open"), 1000))])),
    );
    expect(states, "the held response, the idle connection, the half-open WebSocket").toEqual(["closed", "closed", "closed"]);
  }, 30_000);

  it("starts again on the same data and routes /app/ to the app it left running", async () => {
    await rig.restart();
    expect(rig.server.output().stdout).toMatch(/app hosting: docker \S+ \(1 app running\)/);
    expect(await getWithHost(`${rig.server.url}/app/`, rig.appHost)).toMatchObject({ status: 200, body: expect.stringContaining('"ok":true') });
  }, 60_000);
});
