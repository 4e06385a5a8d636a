import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { RepositeError, type Reposite, type TerminalSession, type TerminalSize } from "@reposite/core";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import { sessionCookieName } from "../http/browser-session.js";
import { parseTerminalMessage, TERMINAL_MESSAGE_MAX_BYTES } from "./terminal-messages.js";

/** `/account/apps/{site_id}/terminal`: the app screen's shell, on the service's own host. */
const TERMINAL_PATH = /^\/account\/apps\/([^/]+)\/terminal$/;

/** A browser that vanished without closing is noticed within two of these, and its shell ends. */
const HEARTBEAT_MS = 30_000;

/** The size a shell starts with until the page says its own (`?cols=&rows=`). */
const DEFAULT_SIZE: TerminalSize = { cols: 80, rows: 24 };

export interface TerminalSockets {
  /** For the server's `upgrade` event: takes the terminal's WebSocket path and answers it; false for anything else. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every terminal socket (their shells end with them). */
  close(): void;
}

/**
 * The bare box's terminal over a WebSocket. Before the upgrade the request must come from the
 * service's own pages (Origin = the base URL's origin: another site's page cannot open a shell
 * with the visitor's cookie), carry a browser session (an API token is refused even when valid)
 * and the session's account must own the app, which must be a running bare box; each refusal is
 * an HTTP answer with `{error, code}`. After it, text frames from the page are JSON messages
 * (input, resize) and binary frames to the page are the terminal's output; either side closing
 * ends the other.
 */
export function terminalSockets(reposite: Reposite): TerminalSockets {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: TERMINAL_MESSAGE_MAX_BYTES });
  const baseOrigin = new URL(reposite.config.baseUrl).origin;

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer, siteId: string): Promise<void> {
    if (req.headers.authorization !== undefined) {
      throw new RepositeError(403, "The terminal needs a browser session; API tokens cannot open it. Sign in at /account.", "session_required");
    }
    if (req.headers.origin !== baseOrigin) {
      throw new RepositeError(403, "The terminal can only be opened from this service's own pages.", "cross_site_request");
    }
    const current = await reposite.sessions.find(cookieValue(req.headers.cookie, sessionCookieName(reposite)));
    if (!current) throw new RepositeError(401, "Sign in at /account to open the terminal.", "session_required");
    const ownerId = current.account.id;
    await reposite.appTerminal.check(ownerId, siteId);
    const size = sizeFromQuery(req.url ?? "");
    sockets.handleUpgrade(req, socket, head, (ws) => void connect(ws, (signal) => reposite.appTerminal.open(ownerId, siteId, size, signal)));
  }

  return {
    upgrade(req, socket, head) {
      if (req.headers.upgrade?.toLowerCase() !== "websocket") return false;
      const match = TERMINAL_PATH.exec(new URL(req.url ?? "/", "http://x").pathname);
      if (!match) return false;
      accept(req, socket, head, decodeSegment(match[1]!)).catch((error: unknown) => refuse(socket, error));
      return true;
    },
    close() {
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
    },
  };
}

/**
 * Joins a just-opened socket to a new shell; messages that come while the shell opens wait for it.
 * The socket closing aborts `open`'s signal: a visitor who left stops holding one of the box's
 * terminals at once, even while the engine is still starting the shell.
 */
async function connect(ws: WebSocket, open: (signal: AbortSignal) => Promise<TerminalSession>): Promise<void> {
  const waiting: RawData[] = [];
  let session: TerminalSession | null = null;
  let closed = false;
  // A frame `ws` cannot accept (reserved opcode, over the size limit, unmasked, bad UTF-8) makes it
  // close this socket with the matching code and emit 'error': heard here, so that peer alone goes.
  ws.on("error", () => undefined);
  const handle = (data: RawData, isBinary: boolean) => {
    const message = isBinary ? null : parseTerminalMessage(data.toString());
    if (!message) return ws.close(1007, "Send JSON text: {type:'input',data} or {type:'resize',cols,rows}.");
    if (message.type === "input") session!.write(message.data);
    else void session!.resize(message.cols, message.rows);
  };
  ws.on("message", (data, isBinary) => {
    if (session) handle(data, isBinary);
    else if (isBinary) ws.close(1007, "Send JSON text: {type:'input',data} or {type:'resize',cols,rows}.");
    else waiting.push(data);
  });
  let alive = true;
  ws.on("pong", () => (alive = true));
  const heartbeat = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const left = new AbortController();
  ws.on("close", () => {
    closed = true;
    clearInterval(heartbeat);
    left.abort();
    session?.close();
  });
  try {
    session = await open(left.signal);
  } catch (error) {
    if (closed) return; // the visitor left first: nobody to tell, and core closes a shell that opens late
    // Checked before the upgrade; only a race (the box stopped, another tab took the last slot) lands here.
    const message = RepositeError.isInstance(error) ? error.message : "The shell could not be started.";
    if (!RepositeError.isInstance(error)) console.error("[reposite] opening a terminal failed:", error);
    return ws.close(1011, truncateReason(message));
  }
  if (closed) return session.close();
  session.onData((data) => {
    if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
  });
  session.onExit(() => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000, "The shell ended.");
  });
  for (const data of waiting.splice(0)) handle(data, false);
}

/** Answers a refused upgrade as JSON `{error, code}` with its status, then closes the connection. */
function refuse(socket: Duplex, error: unknown): void {
  let status = 500;
  let body: Record<string, unknown> = { error: "Something went wrong on our side. Try again; if it keeps happening, tell the operator.", code: "internal" };
  if (RepositeError.isInstance(error)) {
    status = error.status;
    body = error.toJSON();
  } else {
    console.error("[reposite] a terminal upgrade failed:", error);
  }
  const text = JSON.stringify(body);
  if (socket.destroyed) return;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\ncontent-type: application/json;charset=UTF-8\r\ncache-control: no-store\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/** One cookie's value from a `Cookie` header, or undefined. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** `?cols=&rows=` of the upgrade request; core holds them to its bounds. */
function sizeFromQuery(url: string): TerminalSize {
  const query = new URL(url, "http://x").searchParams;
  const number = (name: string, fallback: number) => {
    const value = Number(query.get(name));
    return query.has(name) && Number.isFinite(value) ? value : fallback;
  };
  return { cols: number("cols", DEFAULT_SIZE.cols), rows: number("rows", DEFAULT_SIZE.rows) };
}

/** A path segment decoded; one that does not decode names no project (`404` follows). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return "";
  }
}

/** A close reason is at most 123 bytes. */
function truncateReason(reason: string): string {
  return Buffer.byteLength(reason) <= 123 ? reason : `${Buffer.from(reason).subarray(0, 119).toString("utf8").replace(/\uFFFD$/, "")}…`;
}
