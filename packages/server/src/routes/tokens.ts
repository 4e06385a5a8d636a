import { tokensList, tokensRevoke } from "@reposite/contract";
import type { Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireToken } from "../http/auth.js";
import { operationRoute } from "../http/operation-route.js";

/** The account's tokens. New ones are made only in the browser: a token cannot create a token. */
export function tokenRoutes(app: H3, reposite: Reposite): void {
  operationRoute(app, tokensList, async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.tokens.list(account.id);
  });

  operationRoute(app, tokensRevoke, async (event, { params }) => {
    const { account } = await requireToken(reposite, event);
    await reposite.tokens.revoke(account.id, params.token_id);
    event.res.status = 204;
    return null;
  });
}
