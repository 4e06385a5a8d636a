import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A TCP proxy on loopback in front of a server, as a network path or a load balancer stands:
 * bytes pass unchanged, and a test can cut the connections carrying some requests mid-answer.
 */
export interface DroppingProxy {
  /** `http://127.0.0.1:<port>`: what the browser opens. */
  url: string;
  /** The request lines and `Last-Event-ID` of every request seen so far, in order. */
  requests: { line: string; lastEventId: string | null }[];
  /** Cuts every open connection whose latest request line contains `path`; answers how many. */
  drop(path: string): number;
  /** Answers the next request whose line contains `path` with `502 Bad Gateway` itself, as a balancer with no replica ready does. */
  refuseNext(path: string): void;
  close(): Promise<void>;
}

export async function startDroppingProxy(targetPort: number): Promise<DroppingProxy> {
  const requests: DroppingProxy["requests"] = [];
  // Each browser connection, with the request line it carries now (keep-alive connections carry several).
  const open = new Map<Socket, string>();
  const refusals: string[] = [];
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    open.set(client, "");
    client.on("data", (chunk: Buffer) => {
      // A request's head arrives at the start of a chunk here (small GETs and form posts on loopback).
      const head = chunk.toString("latin1");
      const line = /^(GET|POST|HEAD|PUT|DELETE|OPTIONS|PATCH) [^\r\n]+/.exec(head)?.[0];
      if (line) {
        open.set(client, line);
        requests.push({ line, lastEventId: /\r\nlast-event-id: *([^\r\n]*)/i.exec(head)?.[1] ?? null });
        const refused = refusals.findIndex((path) => line.includes(path));
        if (refused >= 0) {
          refusals.splice(refused, 1);
          // The server never sees it; the answer is written before the connection closes.
          upstream.removeAllListeners("close").on("error", () => {}).destroy();
          client.end("HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: 11\r\nconnection: close\r\n\r\nBad Gateway");
          return;
        }
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const end = () => {
      open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    drop(path) {
      let dropped = 0;
      for (const [socket, line] of open) {
        if (!line.includes(path)) continue;
        // A reset, as when a path through the network breaks: no clean end of the stream.
        socket.resetAndDestroy();
        dropped++;
      }
      return dropped;
    },
    refuseNext(path) {
      refusals.push(path);
    },
    async close() {
      for (const socket of open.keys()) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
