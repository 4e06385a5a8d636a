import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A pass-through socket in front of the real Docker Engine that can hold back the start of
// terminals: `reposite serve` is pointed at it with DOCKER_HOST, so a test decides when the engine
// gets to open a shell instead of hoping it is slow enough (or fast enough) on a busy machine.

/** The Engine API's exec creation: `POST /v1.41/containers/{id}/exec`. */
const EXEC_CREATE = /^(\/v[\d.]+)?\/containers\/[^/]+\/exec$/;

export interface HeldEngine {
  /** `unix://…`: what to give the server as DOCKER_HOST. */
  dockerHost: string;
  /** From now on, terminal execs (created with `Tty: true`) wait until `release()`. */
  hold(): void;
  /** How many terminal execs wait now. */
  waiting(): number;
  /** Sends every waiting exec on to the engine and stops holding. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldEngine(engineSocket = "/var/run/docker.sock"): Promise<HeldEngine> {
  const dir = await mkdtemp(join(tmpdir(), "reposite-held-engine-"));
  const path = join(dir, "docker.sock");
  let holding = false;
  const waiting: (() => void)[] = [];
  const hijacked = new Set<Socket>();

  const forward = (req: IncomingMessage, body: Buffer | null, res: ServerResponse) => {
    const upstream = request({ socketPath: engineSocket, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    if (body) upstream.end(body);
    else req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    if (req.method !== "POST" || !EXEC_CREATE.test(req.url?.split("?")[0] ?? "")) return forward(req, null, res);
    // Small JSON: read it whole to see whether this exec is a terminal.
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const terminal = (JSON.parse(body.toString() || "{}") as { Tty?: boolean }).Tty === true;
      if (holding && terminal) waiting.push(() => forward(req, body, res));
      else forward(req, body, res);
    });
  });
  // An exec's start is hijacked (`Upgrade: tcp`): after the head, bytes go both ways untouched.
  server.on("upgrade", (req: IncomingMessage, client, head: Buffer) => {
    const upstream = connect(engineSocket);
    hijacked.add(upstream);
    upstream.on("close", () => hijacked.delete(upstream));
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    upstream.write(head);
    upstream.pipe(client).pipe(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  // Event and log streams stay open for as long as the server wants them.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  await new Promise<void>((resolve) => server.listen(path, resolve));

  const release = () => {
    holding = false;
    for (const send of waiting.splice(0)) send();
  };
  return {
    dockerHost: `unix://${path}`,
    hold: () => void (holding = true),
    waiting: () => waiting.length,
    release,
    async close() {
      release();
      for (const socket of hijacked) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
