import type { Reposite } from "@reposite/core";
import { getRouterParam, type H3 } from "h3";
import { requireToken } from "../http/auth.js";

/** The account's tokens. New ones are made only in the browser: a token cannot create a token. */
export function tokenRoutes(app: H3, reposite: Reposite): void {
  app.get("/app/tokens", async (event) => {
    const { account } = await requireToken(reposite, event);
    return reposite.tokens.list(account.id);
  });

  app.delete("/app/tokens/:token_id", async (event) => {
    const { account } = await requireToken(reposite, event);
    await reposite.tokens.revoke(account.id, getRouterParam(event, "token_id")!);
    event.res.status = 204;
    return null;
  });
}
