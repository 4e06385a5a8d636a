import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** Answers one request; the request's body has been read already. */
export type Step = (res: ServerResponse, req: IncomingMessage) => void;

export interface ScriptedServer {
  url: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A loopback server that answers request n with `steps[n]` (the last step repeats), so a test
 * can script "503, then 200" and count the attempts the client made.
 */
export async function startScriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
    const step = steps[Math.min(requests.length, steps.length) - 1]!;
    step(res, req);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

export const text =
  (status: number, body: string, contentType = "text/plain"): Step =>
  (res) => {
    res.writeHead(status, { "content-type": contentType });
    res.end(body);
  };

/** Drops the connection without an answer (after the request arrived). */
export const hangUp: Step = (res) => {
  res.socket?.destroy();
};

/** Never answers. */
export const silence: Step = () => {};
