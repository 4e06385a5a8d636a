import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { clientAddress } from "../http/client-address.js";
import { readJsonBody } from "../http/json-body.js";
import type { AppOptions } from "../app.js";

/** Agent login (no token needed to start or finish it) and the calling token's own routes. */
export function agentRoutes(app: H3, reposite: Reposite, options: AppOptions): void {
  app.post("/agent/login", async (event) => {
    const body = await readJsonBody(event);
    const request = await reposite.agentLogin.start(body, { address: clientAddress(event, options.trustProxy ?? false) });
    event.res.status = 201;
    return request;
  });

  app.post("/agent/token", async (event) => reposite.agentLogin.exchange(await readJsonBody(event)));

  app.get("/agent/me", async (event) => {
    const { account, token } = await requireToken(reposite, event);
    return { user: { id: account.id, email: account.email }, auth: "token", token };
  });

  app.delete("/agent/token", async (event) => {
    const { account, token } = await requireToken(reposite, event);
    await reposite.tokens.revoke(account.id, token.id);
    event.res.status = 204;
    return null;
  });
}
