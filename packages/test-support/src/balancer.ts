import { request as httpRequest, createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A round-robin HTTP proxy in front of several replicas, as a load balancer would stand. */
export interface Balancer {
  url: string;
  /** The replicas' base URLs (`http://127.0.0.1:<port>`), in turn order. */
  targets: string[];
  /** Which target answered each request so far, by index (for tests that check the spread). */
  served: number[];
  close(): Promise<void>;
}

/**
 * Sends each request to the next target in turn, streaming both ways (server-sent events work).
 * A target that refuses the connection (a killed replica) is skipped for that request, as a
 * balancer's health check would; a request cut off mid-answer is not retried.
 */
export async function startBalancer(targets: string[]): Promise<Balancer> {
  let next = 0;
  const served: number[] = [];
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: number) => {
    const index = next++ % targets.length;
    const target = new URL(targets[index]!);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        served.push(index);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        res.once("close", () => answer.destroy());
        // The replica went away mid-answer (killed): the client's connection drops too, as behind a real balancer.
        answer.once("close", () => {
          if (!answer.complete) res.destroy();
        });
      },
    );
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (res.headersSent) return void res.destroy();
      if (error.code === "ECONNREFUSED" && tried + 1 < targets.length) return forward(req, res, body, tried + 1);
      res.writeHead(502, { "content-type": "text/plain" }).end(`balancer: ${error.message}`);
    });
    upstream.end(body);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), 0));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    served,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
