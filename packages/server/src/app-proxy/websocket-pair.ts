import type { Duplex } from "node:stream";

/** How long a proxied WebSocket may stay half-closed (one side ended, the other not) before both close. */
export const HALF_CLOSED_MS = 10_000;

/**
 * Ties a visitor's proxied WebSocket to its connection to the app: when either side closes or
 * fails, the other is closed too, and once one side has ended its half, the other has
 * `halfClosedMs` to end its own. Without this a visitor that vanished left the connection to the
 * app open, or half-closed in FIN-WAIT-2, for as long as the app held it, and it kept a stopping
 * server alive.
 */
export function tieWebSocketEnds(visitor: Duplex, app: Duplex, halfClosedMs = HALF_CLOSED_MS): void {
  let timer: NodeJS.Timeout | undefined;
  const closeBoth = () => {
    clearTimeout(timer);
    visitor.destroy();
    app.destroy();
  };
  const halfClosed = () => {
    timer ??= setTimeout(closeBoth, halfClosedMs);
    timer.unref();
  };
  for (const socket of [visitor, app]) {
    socket.once("close", closeBoth);
    socket.once("end", halfClosed);
    socket.on("error", closeBoth);
  }
}
