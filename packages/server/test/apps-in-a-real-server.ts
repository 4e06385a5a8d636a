import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { buildLocalBaseImages, docker, freePort, removeDataDir, removeLabelled, startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { json } from "./harness.js";
import { startServerProcess, stopLeftNginx, type ServerProcess } from "./server-process.js";
import { WEBSOCKET_ECHO_JS } from "./websocket-echo-source.js";

// `reposite serve` in its own process on the real Docker Engine, with apps deployed through its
// API: a WebSocket app behind `/app/` and, when asked, a bare box for the terminal. For tests that
// treat the server as a peer on the network would (raw frames, half-open connections, SIGTERM).

const RUN_LABEL = "reposite-test.run";

/**
 * The app behind `/app/`, without dependencies (nothing installs in a build here). `/ws`: a
 * WebSocket echo; `/ws-hold`: a WebSocket that never answers and never closes its side; `/hold`: a
 * response that never ends; `/break`: resets the connection halfway through its answer;
 * `/slow?ms=`: answers after that long; anything else (an upload too, unread): `{ ok: true }`.
 */
const APP_JS = `
const http = require("node:http");
${WEBSOCKET_ECHO_JS}
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://app");
  if (url.pathname === "/hold") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: held\\n\\n");
    return;
  }
  if (url.pathname === "/break") {
    res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
    res.write("part of an answer");
    setTimeout(() => req.socket.resetAndDestroy(), 50);
    return;
  }
  if (url.pathname === "/slow") {
    setTimeout(() => res.end("slow answer done"), Number(url.searchParams.get("ms")) || 1000);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: true, path: req.url }));
});
server.on("upgrade", (req, socket) => acceptWebSocket(req, socket, req.url === "/ws-hold" ? null : (text) => "echo " + text));
server.listen(Number(process.env.PORT) || 3000, "0.0.0.0");
process.on("SIGTERM", () => process.exit(0));
`;

export interface AppsInARealServer {
  server: ServerProcess;
  port: number;
  /** The Host of the WebSocket app's site: `/app/` there reaches it. */
  appHost: string;
  /** The port the app's container publishes on 127.0.0.1: the proxy's connections to the app go there. */
  appPort: number;
  /** The bare box's project id (`/account/apps/{id}/terminal`), when one was asked for. */
  boxId: string | null;
  /** Headers a page of the service itself sends: its Origin and the owner's session cookie. */
  pageHeaders: Record<string, string>;
  /** Starts the server process again (after a stop) on the same data and port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startServerWithApps(options: { box?: boolean; env?: Record<string, string> } = {}): Promise<AppsInARealServer> {
  const run = `real-server-${randomBytes(4).toString("hex")}`;
  const images = await buildLocalBaseImages();
  const appRepo: FakeRepo = {
    owner: "acme",
    name: `ws-app-${run.slice(-8)}`,
    files: { Dockerfile: [`FROM ${images.node}`, `LABEL ${RUN_LABEL}=${run}`, "WORKDIR /app", "COPY app.js ./", 'CMD ["node", "app.js"]', ""].join("\n"), "app.js": APP_JS },
  };
  const boxRepo: FakeRepo = { owner: "acme", name: `box-${run.slice(-8)}`, files: { "README.md": "# A box\n" } };
  const github: FakeGitHub = await startFakeGitHub({ repos: [appRepo, boxRepo] });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-real-apps-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;

  const setup = createReposite({ config: { dataDir }, repoHosts: [] });
  const { account } = await setup.accounts.findOrCreate(`owner-${run}@example.com`);
  const { secret: token } = await setup.tokens.create(account.id, { name: "real-server", lifetime: "30d" });
  const { secret: session } = await setup.sessions.create(account.id);
  await setup.close();

  const env = {
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_BASE_URL: url,
    REPOSITE_GITHUB_API_URL: github.url,
    REPOSITE_BASE_IMAGE_NODE: images.node,
    REPOSITE_BARE_IMAGES: `alpine:3.20=${images.busybox}`,
    REPOSITE_APP_LABELS: `${RUN_LABEL}=${run}`,
    ...options.env,
  };
  let server = await startServerProcess(port, env);
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const response = await fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const deployed = async (repo: FakeRepo, deployment: Record<string, unknown>) => {
    const { id } = await api<{ id: string }>("/app/sites", json({ repohost_url: `https://github.com/${repo.owner}/${repo.name}`, name: repo.name }));
    await api(`/app/sites/${id}/deployment`, json(deployment, undefined, "PUT"));
    const { job_id } = await api<{ job_id: string }>(`/app/sites/${id}/deployment/deploy`, { method: "POST" });
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`);
      if (job.finished_at && job.status !== "done") throw new Error(`deploying ${repo.name} ended ${job.status}`);
      if (job.finished_at) return { id, ...(await api<{ slug: string }>(`/app/sites/${id}/deployment`)) };
    }
    throw new Error(`deploying ${repo.name} did not finish`);
  };
  try {
    // One deploy at a time per account.
    const app = await deployed(appRepo, {});
    const box = options.box ? await deployed(boxRepo, { build_mode: "bare", base_image: "alpine:3.20" }) : null;
    return {
      get server() {
        return server;
      },
      port,
      appHost: `${app.slug}.localhost:${port}`,
      appPort: await publishedPort(run, app.id),
      boxId: box?.id ?? null,
      pageHeaders: { origin: url, cookie: `reposite_session=${session}` },
      async restart() {
        server = await startServerProcess(port, env);
      },
      async close() {
        if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
        await stopLeftNginx(dataDir);
        await github.close();
        await removeLabelled(RUN_LABEL, run);
        await removeDataDir(dataDir);
      },
    };
  } catch (error) {
    await server.kill();
    await stopLeftNginx(dataDir);
    await github.close();
    await removeLabelled(RUN_LABEL, run);
    await removeDataDir(dataDir);
    throw error;
  }
}

/** What a raw WebSocket handshake got: the open socket and the status line, plus any bytes after the head. */
export interface RawWebSocket {
  socket: Socket;
  status: number;
  /** Every byte received after the handshake's head, as it arrives. */
  received: Buffer[];
  closed: Promise<void>;
}

/**
 * Opens a WebSocket with node:net and nothing else, so a test can send what no WebSocket library
 * would: reserved opcodes, unmasked frames, oversized lengths, bad UTF-8. `Host` is the server's
 * own (`127.0.0.1:port`) unless `headers` gives one; `null` leaves a header out.
 */
export function rawWebSocket(port: number, path: string, headers: Record<string, string | null>): Promise<RawWebSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    let head = Buffer.alloc(0);
    const received: Buffer[] = [];
    let opened = false;
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      if (opened) return void received.push(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      opened = true;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head.toString("latin1"))?.[1] ?? 0);
      if (head.length > end + 4) received.push(head.subarray(end + 4));
      resolve({ socket, status, received, closed });
    });
    socket.once("close", () => {
      if (!opened) reject(new Error(`the connection closed before an answer: ${head.toString("latin1")}`));
    });
    // A Host unless told otherwise: HTTP/1.1 requires one, and nginx refuses a request without it (400).
    const sent = { host: `127.0.0.1:${port}`, connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": randomBytes(16).toString("base64"), ...headers };
    const lines = [`GET ${path} HTTP/1.1`, ...Object.entries(sent).flatMap(([name, value]) => (value === null ? [] : [`${name}: ${value}`]))];
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  });
}

/** A client frame: FIN, the opcode, masked with a random key unless `masked` is false. */
export function clientFrame(opcode: number, payload: Buffer, { masked = true, length = payload.length } = {}): Buffer {
  const lengthBytes =
    length < 126 ? Buffer.from([length]) : length < 65_536 ? Buffer.from([126, length >> 8, length & 255]) : Buffer.concat([Buffer.from([127]), bigEndian64(length)]);
  if (masked) lengthBytes[0]! |= 0x80;
  const key = masked ? randomBytes(4) : Buffer.alloc(0);
  const body = Buffer.from(payload);
  if (masked) for (let i = 0; i < body.length; i++) body[i]! ^= key[i % 4]!;
  return Buffer.concat([Buffer.from([0x80 | opcode]), lengthBytes, key, body]);
}

function bigEndian64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

/** The host port of the app container of project `siteId` in this run. */
async function publishedPort(run: string, siteId: string): Promise<number> {
  const { stdout: id } = await docker(["ps", "-q", "--filter", `label=${RUN_LABEL}=${run}`, "--filter", `label=dev.reposite.site=${siteId}`]);
  const { stdout } = await docker(["port", id.trim().split("\n")[0]!]);
  return Number(/:(\d+)\s*$/m.exec(stdout)?.[1]);
}
