import type { Account, Reposite } from "@reposite/core";
import { getRouterParam, type H3, type H3Event } from "h3";
import { currentSession } from "../http/browser-session.js";
import { pageRoute, readPageForm, seeOther, toPageSession } from "../http/page-route.js";
import { pageResponse } from "../pages/layout.js";
import { verifyPage, verifyPath } from "../pages/verify-page.js";

/**
 * Who a signed-out visitor is to the login request: no account, so they see only its state
 * (expired, declined, or waiting for someone to sign in) and never a code.
 */

/**
 * The person's side of agent login: the link shows who asks, and two equal choices; continuing
 * shows the code to read out; "I did not ask for this" stays available and revokes the token.
 */
export function agentPageRoutes(app: H3, reposite: Reposite): void {
  const verificationId = (event: H3Event) => getRouterParam(event, "verification_id")!;

  app.get(
    "/agent/verify/:verification_id",
    pageRoute(async (event) => {
      const id = verificationId(event);
      const current = await currentSession(reposite, event);
      // Unknown links answer 404 (as a page) from here.
      const request = await reposite.agentLogin.page(id, current?.account ?? null);
      return pageResponse(
        verifyPage({ verificationId: id, request, session: current && toPageSession(reposite, current) }),
      );
    }),
  );

  for (const [action, answer] of [
    ["continue", (id: string, account: Account) => reposite.agentLogin.approve(id, account)],
    ["decline", (id: string, account: Account) => reposite.agentLogin.decline(id, account)],
  ] as const) {
    app.post(
      `/agent/verify/:verification_id/${action}`,
      pageRoute(async (event) => {
        const id = verificationId(event);
        const { current } = await readPageForm(reposite, event);
        // Signed out (the session ended meanwhile): the page asks them to sign in first.
        if (current) await answer(id, current.account);
        return seeOther(verifyPath(id));
      }),
    );
  }
}
