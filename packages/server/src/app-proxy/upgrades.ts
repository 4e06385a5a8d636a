import { ServerResponse, type IncomingMessage, type Server } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AppProxy } from "./app-proxy.js";

/**
 * The server's `upgrade` event. With a listener there, node:http hands every request that asks for
 * an upgrade to it, not to the request listener: WebSockets to a site's `/app` go to the proxy,
 * the service's own (`others`: the app screen's terminal) to them, other WebSockets are refused
 * with 404, and any other upgrade (`curl --http2` asks for h2c on every plain-http request) is
 * answered as the ordinary request it also is, as if the header were not there, then the
 * connection closes.
 */
export function listenForUpgrades(server: Server, proxy: AppProxy, others: readonly UpgradeTaker[] = []): void {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // node:http stops listening for this socket's errors here; an unheard 'error' (a peer that resets
    // while it is checked or answered) would end the process, so each taker's errors close only it.
    socket.on("error", () => socket.destroy());
    if (proxy.upgrade(req, socket, head)) return;
    if (others.some((take) => take(req, socket, head))) return;
    if (req.headers.upgrade?.toLowerCase() === "websocket") return refuse(socket, "404 Not Found");
    // The parser has let go of the connection: a body could not be read any more.
    if (Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"]) return refuse(socket, "400 Bad Request");
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once("finish", () => {
      res.detachSocket(socket as Socket);
      (socket as Socket).destroySoon();
    });
    server.emit("request", req, res);
  });
}

/** Another WebSocket endpoint of the server (the app screen's terminal): true when it took the request. */
export type UpgradeTaker = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
}
