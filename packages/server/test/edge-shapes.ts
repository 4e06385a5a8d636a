import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { Reposite } from "@reposite/core";
import { startServer, type RunningServer } from "../src/start-server.js";

// The two shapes every end-to-end test of sites and `/app/` runs in: Reposite serving everything
// ("node"), and REPOSITE_EDGE=nginx ("nginx": nginx on PORT in front of Reposite on a loopback port).

export type Shape = "node" | "nginx";

const nginxHere = await new Promise<boolean>((resolve) => execFile("nginx", ["-v"], (error) => resolve(!error)));
// CI installs nginx: there a missing one is a failure, not a shape left out.
if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !nginxHere) throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx is not installed (apt-get install nginx)");

export const SHAPES: Shape[] = nginxHere ? ["node", "nginx"] : ["node"];

/** `startServer` with an embedder's composition on 127.0.0.1:`port`, in one shape. */
export function startServerIn(shape: Shape, reposite: Reposite, port: number): Promise<RunningServer> {
  return startServer({ settings: { listen: { port, hostname: "127.0.0.1" }, reposite: {}, ...(shape === "nginx" ? { edge: "nginx" as const } : {}) }, reposite });
}

/** Requests this process's HTTP servers received since `start`: on Reposite's main listener, and at the edge's member gate. */
export interface NodeRequests {
  main: number;
  gate: number;
  /** The main listener's requests, as `METHOD url`. */
  seen: string[];
  stop(): void;
}

/**
 * Counts the requests that reach Reposite's own process (Node's `http.server.request.start`
 * channel): with nginx in front, what nginx serves by itself never shows here.
 */
export function countNodeRequests(server: RunningServer): NodeRequests {
  // With the edge, its start-up line names Reposite's internal address ("… in front of Reposite on 127.0.0.1:PORT").
  const port = server.edge ? Number(/in front of Reposite on [^ ]+:(\d+)/.exec(server.edge)?.[1]) : Number(new URL(server.url).port);
  if (!port) throw new Error(`no Reposite port in ${server.edge ?? server.url}`);
  const counts: NodeRequests = {
    main: 0,
    gate: 0,
    seen: [],
    stop: () => unsubscribe("http.server.request.start", listener),
  };
  const listener = (message: unknown) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    if (socket.localPort === port) counts.main++, counts.seen.push(`${request.method} ${request.url}`);
    else if (request.url?.startsWith("/member-gate")) counts.gate++;
  };
  subscribe("http.server.request.start", listener);
  return counts;
}

/** What reached Reposite while `request` ran: on its main listener, and at the member gate. */
export async function nodeRequestsFor(server: RunningServer, request: () => Promise<unknown>): Promise<{ main: number; gate: number }> {
  const requests = countNodeRequests(server);
  try {
    await request();
    return { main: requests.main, gate: requests.gate };
  } finally {
    requests.stop();
  }
}

/** Whether nginx answered `request` by itself: no request reached Reposite's main listener (the member gate may be asked). */
export const byNginxAlone = async (server: RunningServer, request: () => Promise<unknown>): Promise<boolean> => (await nodeRequestsFor(server, request)).main === 0;

/**
 * A cookie no gate decision is kept for (nginx keys them by host and cookie): with it, nginx asks
 * the member gate on every request to a members-only app, and never for an open one.
 */
export const freshCookie = () => `probe=${randomUUID()}`;
