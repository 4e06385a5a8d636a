import { execFile } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { dockerForTests, getWithHost } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { clientFrame, rawWebSocket, startServerWithApps, type AppsInARealServer, type RawWebSocket } from "./apps-in-a-real-server.js";

// One peer's bad WebSocket frames, sent with a raw socket to a real `reposite serve` on the
// engine: on a bare box's terminal (where `ws` reads the frames) and through `/app/` (where the
// proxy only carries them). Each must close that peer's connection and nothing else. Both shapes
// run the same tests: Node serving everything, and REPOSITE_EDGE=nginx (nginx on PORT carries the
// terminal to Node and `/app/` straight to the app's container).

const engine = await dockerForTests();
const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
if (engine.required && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");
const SHAPES: ("node" | "nginx")[] = nginxHere ? ["node", "nginx"] : ["node"];

const TEXT = 0x1;

/** Frames no WebSocket library would send, and the close code `ws` answers each with on the terminal. */
const BAD_FRAMES: { name: string; bytes: () => Buffer; closeCode: number }[] = [
  // The 6 bytes: FIN + opcode 3 (reserved), masked, empty.
  { name: "a reserved opcode (83 80 00 00 00 00)", bytes: () => Buffer.from([0x83, 0x80, 0, 0, 0, 0]), closeCode: 1002 },
  { name: "a text frame over the 64 KiB limit", bytes: () => clientFrame(TEXT, Buffer.alloc(64 * 1024 + 1, 0x61)), closeCode: 1009 },
  { name: "an unmasked client frame", bytes: () => clientFrame(TEXT, Buffer.from('{"type":"input","data":"x"}'), { masked: false }), closeCode: 1002 },
  { name: "a text frame that is not UTF-8", bytes: () => clientFrame(TEXT, Buffer.from([0xff, 0xfe, 0xfd])), closeCode: 1007 },
  { name: "a length of 2^53 (64-bit length field)", bytes: () => clientFrame(TEXT, Buffer.alloc(0), { length: 2 ** 53 - 1 }), closeCode: 1009 },
];

/** The close code of the first close frame among `received`, or null. */
function closeCode(received: Buffer[]): number | null {
  const bytes = Buffer.concat(received);
  for (let at = 0; at + 2 <= bytes.length; ) {
    const opcode = bytes[at]! & 0x0f;
    const length = bytes[at + 1]! & 0x7f;
    const start = at + 2 + (length === 126 ? 2 : length === 127 ? 8 : 0);
    const size = length === 126 ? bytes.readUInt16BE(at + 2) : length;
    if (opcode === 0x8) return size >= 2 ? bytes.readUInt16BE(start) : null;
    at = start + size;
  }
  return null;
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms))]);

describe.skipIf(!engine.available).each(SHAPES)("bad WebSocket frames sent to a real server (edge: %s)", (shape) => {
  let rig: AppsInARealServer;

  beforeAll(async () => {
    rig = await startServerWithApps({ box: true, env: shape === "nginx" ? { REPOSITE_EDGE: "nginx" } : {} });
  }, 240_000);
  afterAll(async () => {
    // A clean stop takes the server's nginx with it (a kill would leave it on the port).
    await rig?.server.stop();
    await rig?.close();
  }, 60_000);

  const healthy = async () => {
    expect(rig.server.child.exitCode, rig.server.output().stderr).toBeNull();
    expect((await fetch(`${rig.server.url}/healthz`)).status).toBe(200);
  };

  it("closes the terminal connection that sent each bad frame, and the server keeps answering", async () => {
    const path = `/account/apps/${rig.boxId}/terminal`;
    for (const bad of BAD_FRAMES) {
      const peer = await rawWebSocket(rig.port, path, rig.pageHeaders);
      expect(peer.status, bad.name).toBe(101);
      // Once the shell is open (its prompt came): a terminal still being opened on the engine counts
      // against the box's 4 until the engine answers, so five quick peers could meet 429 under load.
      await expect.poll(() => peer.received.length, { timeout: 10_000 }).toBeGreaterThan(0);
      peer.socket.write(bad.bytes());
      await within(peer.closed, 10_000, bad.name);
      expect(closeCode(peer.received), bad.name).toBe(bad.closeCode);
      await healthy();
    }
    // A peer that resets mid-frame.
    const peer = await rawWebSocket(rig.port, path, rig.pageHeaders);
    peer.socket.write(clientFrame(TEXT, Buffer.alloc(1000)).subarray(0, 10));
    peer.socket.resetAndDestroy();
    await healthy();

    // The terminal itself still works for the owner.
    const ws = new WebSocket(`ws://127.0.0.1:${rig.port}${path}`, { headers: rig.pageHeaders });
    let output = "";
    ws.on("message", (data: Buffer) => (output += data.toString("utf8")));
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    ws.send(JSON.stringify({ type: "input", data: "echo st''ill-here\r" }));
    await expect.poll(() => output, { timeout: 10_000 }).toContain("still-here");
    ws.close();
  }, 60_000);

  it("lets go of its connection to the app when the visitor of a proxied WebSocket vanishes, even if the app never closes", async () => {
    // First in the file: later tests leave half-closed WebSockets that get their own 10 s.
    // Whoever proxies /app/ holds the connections to the app: Node itself, or the nginx it runs
    // (its master and workers are the server's descendants). Counted against those held before,
    // as nginx keeps idle keep-alive connections to an app (none is a WebSocket).
    const appSockets = async () => socketsTo(await processTree(rig.server.child.pid!), rig.appPort);
    const before = await appSockets();
    const peer = await rawWebSocket(rig.port, "/app/ws-hold", { host: rig.appHost });
    expect(peer.status).toBe(101);
    await expect.poll(appSockets).toBeGreaterThan(before);
    // With the edge, nginx carries it: Node itself holds no connection to the app.
    if (shape === "nginx") expect(await socketsTo([rig.server.child.pid!], rig.appPort)).toBe(0);
    peer.socket.resetAndDestroy();
    // Before: the proxy half-closed it (FIN-WAIT-2) and held it for as long as the app did.
    await expect.poll(appSockets, { timeout: 5_000 }).toBe(before);
    await healthy();
  }, 30_000);

  it("carries each bad frame through /app/ to the app: at most that connection closes, the server and the app keep answering", async () => {
    const echo = async (peer: RawWebSocket) => {
      peer.socket.write(clientFrame(TEXT, Buffer.from("hello")));
      await expect.poll(() => Buffer.concat(peer.received).toString("latin1"), { timeout: 5_000 }).toContain("echo hello");
    };
    for (const bad of BAD_FRAMES) {
      const peer = await rawWebSocket(rig.port, "/app/ws", { host: rig.appHost });
      expect(peer.status, bad.name).toBe(101);
      await echo(peer);
      peer.socket.write(bad.bytes());
      // The app may close or ignore it; either way only this connection is concerned.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await healthy();
      peer.socket.destroy();
    }
    // A peer that resets mid-frame while the app holds its connection, and one that resets mid-handshake.
    const held = await rawWebSocket(rig.port, "/app/ws-hold", { host: rig.appHost });
    held.socket.write(clientFrame(TEXT, Buffer.alloc(1000)).subarray(0, 10));
    held.socket.resetAndDestroy();
    const halfway = connect(rig.port, "127.0.0.1");
    halfway.on("error", () => undefined);
    halfway.write(`GET /app/ws HTTP/1.1\r\nhost: ${rig.appHost}\r\nconnection: Upgrade\r\nupgrade: websocket\r\n\r\n`, () => halfway.resetAndDestroy());
    await healthy();

    // The app still answers, over HTTP and over a new WebSocket.
    expect(await getWithHost(`${rig.server.url}/app/`, rig.appHost)).toMatchObject({ status: 200, body: expect.stringContaining('"ok":true') });
    const next = await rawWebSocket(rig.port, "/app/ws", { host: rig.appHost });
    await echo(next);
    next.socket.destroy();
  }, 60_000);

  it("closes only the connection of a peer that breaks off: an upload cut mid-body, a dropped event stream, an app that resets mid-answer", async () => {
    // An upload that announces 10 MB, sends 64 KB and resets.
    const upload = connect(rig.port, "127.0.0.1");
    upload.on("error", () => undefined);
    upload.write(`POST /app/upload HTTP/1.1\r\nhost: ${rig.appHost}\r\ncontent-type: application/octet-stream\r\ncontent-length: 10000000\r\n\r\n`);
    upload.write(Buffer.alloc(64 * 1024), () => setTimeout(() => upload.resetAndDestroy(), 100));
    // An event stream the app holds, dropped by the visitor after its first event.
    const stream = connect(rig.port, "127.0.0.1");
    stream.on("error", () => undefined);
    stream.write(`GET /app/hold HTTP/1.1\r\nhost: ${rig.appHost}\r\n\r\n`);
    await new Promise((resolve) => stream.once("data", resolve));
    stream.resetAndDestroy();
    // The app breaks off its own answer.
    const broken = await new Promise<{ complete: boolean; received: string; edge: unknown }>((resolve, reject) => {
      const req = request(`${rig.server.url}/app/break`, { headers: { host: rig.appHost } }, (res) => {
        let received = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (received += chunk));
        res.on("error", () => undefined);
        res.once("close", () => resolve({ complete: res.complete, received, edge: res.headers["x-reposite-edge"] }));
      });
      req.once("error", reject);
      req.end();
    });
    expect(broken).toEqual({ complete: false, received: "part of an answer", edge: shape === "nginx" ? "nginx" : undefined });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await healthy();
    expect(await getWithHost(`${rig.server.url}/app/`, rig.appHost)).toMatchObject({ status: 200 });
  }, 30_000);
});

/** TCP connections the processes `pids` hold to `port` (a container's published port), in any state. */
function socketsTo(pids: number[], port: number): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile("ss", ["-tanpH"], (error, stdout) => {
      if (error) return reject(error);
      // State, Recv-Q, Send-Q, local address, peer address, process.
      resolve(stdout.split("\n").filter((line) => pids.some((pid) => line.includes(`pid=${pid},`)) && line.trim().split(/\s+/)[4]?.endsWith(`:${port}`)).length);
    }),
  );
}

/** `pid` and every process below it (the server's nginx master and workers, when it runs one). */
function processTree(pid: number): Promise<number[]> {
  return new Promise((resolve, reject) =>
    execFile("ps", ["-eo", "pid=,ppid="], (error, stdout) => {
      if (error) return reject(error);
      const pairs = stdout.trim().split("\n").map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
      const tree = [pid];
      for (let i = 0; i < tree.length; i++) for (const [child, parent] of pairs) if (parent === tree[i]) tree.push(child);
      resolve(tree);
    }),
  );
}
