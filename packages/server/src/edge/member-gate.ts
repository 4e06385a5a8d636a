import { rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AppTarget, MemberView, NodeSocket } from "@reposite/core";
import { headerValue, MEMBER_EMAIL_HEADER, MEMBER_ID_HEADER } from "../app-proxy/request-headers.js";

/** Who may use a site's app, from memory (`AppProxy.memberGate`). */
export type MemberGateDecision = (host: string | undefined, cookie: string | undefined) => Promise<{ member: MemberView | null } | "reposite">;

/** Reposite's end of nginx's `auth_request` for members-only apps. */
export interface MemberGateListener {
  /** Where it answers: 127.0.0.1 and a free port, or the Unix socket it was given. */
  target: AppTarget | NodeSocket;
  close(): Promise<void>;
}

/**
 * A listener of its own on loopback, which only nginx's internal gate location is sent to: the
 * visitor's `Host` and `Cookie` in, `200` with `X-Reposite-Member-Id`/`-Email` (the member, or none)
 * or `401` out. A `401` makes nginx hand the whole request to Reposite, which answers it as without
 * the edge (the redirect to sign in); a failure answers `401` too, so Reposite decides and logs again.
 * Not on Reposite's main port: nothing a visitor sends through nginx reaches it. With `socket` it
 * listens there instead (nginx in a container reaches no listener on this machine's loopback, only
 * a socket in a bind-mounted folder).
 */
export async function startMemberGate(decide: MemberGateDecision, socket?: string): Promise<MemberGateListener> {
  const server = createServer((req, res) => {
    decide(req.headers.host, req.headers.cookie).then(
      (decision) => {
        if (decision === "reposite") return res.writeHead(401, { "content-length": "0" }).end();
        const headers: Record<string, string> = { "content-length": "0" };
        if (decision.member) {
          headers[MEMBER_ID_HEADER] = decision.member.id;
          headers[MEMBER_EMAIL_HEADER] = headerValue(decision.member.email);
        }
        res.writeHead(200, headers).end();
      },
      (error: unknown) => {
        console.error("[reposite] [edge] the member gate failed; Reposite answers the request itself:", error);
        res.writeHead(401, { "content-length": "0" }).end();
      },
    );
  });
  // A socket file left by a killed run would refuse the listen (EADDRINUSE).
  if (socket) await rm(socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (socket) server.listen(socket, resolve);
    else server.listen(0, "127.0.0.1", resolve);
  });
  return {
    target: socket ? { socket } : { host: "127.0.0.1", port: (server.address() as { port: number }).port },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
