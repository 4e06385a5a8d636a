import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpChallenges } from "@reposite/core";

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = "/.well-known/acme-challenge/";

/**
 * The HTTP-01 challenge route, in front of everything else: `GET /.well-known/acme-challenge/<token>`
 * on any host answers the key authorization of a challenge under way (from memory, else from the
 * records another replica placed), else 404. It comes before host routing, so a custom domain's site
 * or app never answers for the CA.
 */
export function acmeChallengeRoute(challenges: Pick<HttpChallenges, "find">, next: NodeListener): NodeListener {
  return (req, res) => {
    const url = req.url ?? "";
    if (!url.startsWith(PREFIX) || (req.method !== "GET" && req.method !== "HEAD")) return next(req, res);
    const token = url.slice(PREFIX.length).split("?")[0]!;
    const send = (status: number, body: string, type: string) => {
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    challenges.find(token).then(
      (answer) => (answer ? send(200, answer, "application/octet-stream") : send(404, "No challenge is under way for this token.\n", "text/plain; charset=utf-8")),
      // Storage did not answer: the CA tries again (a 503 is no answer it would take for wrong).
      () => send(503, "Challenges cannot be read right now.\n", "text/plain; charset=utf-8"),
    );
  };
}
