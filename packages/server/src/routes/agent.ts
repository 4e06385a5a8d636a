import { agentLogin, agentLogout, agentMe, agentToken } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { clientAddress } from "../http/client-address.js";
import { operationRoute } from "../http/operation-route.js";
import type { AppOptions } from "../app.js";

/** Agent login (no token needed to start or finish it) and the calling token's own routes. */
export function agentRoutes(app: H3, reposite: Reposite, options: AppOptions): void {
  operationRoute(app, agentLogin, async (event, { body }) => {
    const request = await reposite.agentLogin.start(body, { address: clientAddress(event, options.trustProxy ?? false) });
    event.res.status = 201;
    return request;
  });

  operationRoute(app, agentToken, (_event, { body }) => reposite.agentLogin.exchange(body));

  operationRoute(app, agentMe, async (event) => {
    const { account, token } = await requireToken(reposite, event);
    return { user: { id: account.id, email: account.email }, auth: "token" as const, token };
  });

  operationRoute(app, agentLogout, async (event) => {
    const { account, token } = await requireToken(reposite, event);
    await reposite.tokens.revoke(account.id, token.id);
    event.res.status = 204;
    return null;
  });
}
