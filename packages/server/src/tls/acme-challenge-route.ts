import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpChallenges } from "@reposite/core";

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

const PREFIX = "/.well-known/acme-challenge/";

/**
 * The HTTP-01 challenge route, in front of everything else: `GET /.well-known/acme-challenge/<token>`
 * on any host answers the key authorization of a challenge under way (from memory), else 404. It
 * comes before host routing, so a custom domain's site or app never answers for the CA.
 */
export function acmeChallengeRoute(challenges: HttpChallenges, next: NodeListener): NodeListener {
  return (req, res) => {
    const url = req.url ?? "";
    if (!url.startsWith(PREFIX) || (req.method !== "GET" && req.method !== "HEAD")) return next(req, res);
    const token = url.slice(PREFIX.length).split("?")[0]!;
    const answer = challenges.answer(token);
    const body = answer ?? "No challenge is under way for this token.\n";
    res.writeHead(answer ? 200 : 404, {
      "content-type": answer ? "application/octet-stream" : "text/plain; charset=utf-8",
      "content-length": Buffer.byteLength(body),
      "cache-control": "no-store",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
}
