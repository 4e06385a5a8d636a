import { RepositeError, safeNextPath, type Reposite, type TokenLifetime } from "@reposite/core";
import { getQuery, getRouterParam, type H3 } from "h3";
import { currentSession, endSession, sessionSecret, startSession } from "../http/browser-session.js";
import { clientAddress } from "../http/client-address.js";
import { dashboardRoutes } from "../dashboard/index.js";
import { pageRoute, readPageForm, seeOther, toPageSession } from "../http/page-route.js";
import { accountPage } from "../pages/account-page.js";
import { checkEmailPage } from "../pages/check-email-page.js";
import { pageResponse } from "../pages/layout.js";
import { confirmSignInPage, signInPage } from "../pages/sign-in-page.js";

/** Confirmations shown after a redirect, by the key in `?done=`; anything else shows nothing. */
const NOTICES: Record<string, string> = {
  revoked: "The token was revoked. It stops working on its next request.",
};

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The account pages: sign in or up with a mailed one-time link, sign out, tokens (made only
 * here, by a person), and the dashboard of the person's sites (../dashboard); the billing pages
 * are in billing-pages.ts. `trustProxy`: believe
 * `X-Forwarded-For` for the client's address, which sign-in mail is limited by.
 */
export function accountPageRoutes(app: H3, reposite: Reposite, options: { trustProxy?: boolean } = {}): void {
  app.get(
    "/account",
    pageRoute(async (event) => {
      const query = getQuery(event);
      const current = await currentSession(reposite, event);
      if (!current) return pageResponse(signInPage({ next: safeNextPath(text(query.next)) }));
      return pageResponse(
        accountPage({
          session: toPageSession(reposite, current),
          tokens: await reposite.tokens.list(current.account.id),
          notice: NOTICES[text(query.done) ?? ""],
        }),
      );
    }),
  );

  app.post(
    "/account/sign-in",
    pageRoute(async (event) => {
      const { form } = await readPageForm(reposite, event);
      const next = safeNextPath(form.get("next") ?? undefined);
      const email = (form.get("email") ?? "").trim();
      let result;
      try {
        result = await reposite.signInLinks.send(email, { next, address: clientAddress(event, options.trustProxy ?? false) });
      } catch (error) {
        if (RepositeError.isInstance(error) && error.status === 422) {
          return pageResponse(signInPage({ next, email, error: "Enter a valid email address." }), 400);
        }
        throw error;
      }
      if (!result.sent) {
        // A rate limit is the client's to wait out (429); anything else is the mail's trouble (503).
        if (result.retryAfter !== undefined) {
          return pageResponse(signInPage({ next, email, error: result.error }), 429, { "retry-after": String(result.retryAfter) });
        }
        return pageResponse(signInPage({ next, email, error: result.error }), 503);
      }
      return seeOther(`/account/sign-in/sent?next=${encodeURIComponent(next)}`);
    }),
  );

  app.get(
    "/account/sign-in/sent",
    pageRoute(async (event) => pageResponse(checkEmailPage({ next: safeNextPath(text(getQuery(event).next)) }))),
  );

  // The mailed link only shows a button: mail scanners that open links must not use it up.
  app.get(
    "/account/sign-in/confirm",
    pageRoute(async (event) => {
      const token = text(getQuery(event).token);
      if (!token || token.length > 200) {
        throw new RepositeError(400, "This sign-in link is incomplete. Copy the whole link from the email, or ask for a new one.", "invalid_link");
      }
      const current = await currentSession(reposite, event);
      return pageResponse(confirmSignInPage({ token, csrf: current?.session.csrf }));
    }),
  );

  app.post(
    "/account/sign-in/confirm",
    pageRoute(async (event) => {
      const { form, current } = await readPageForm(reposite, event);
      const { account, next } = await reposite.signInLinks.consume(form.get("token") ?? "");
      // A new session every sign-in; the one this browser had (maybe another account's) ends.
      if (current) await reposite.sessions.destroy(sessionSecret(reposite, event)!);
      await startSession(reposite, event, account.id);
      return seeOther(safeNextPath(next));
    }),
  );

  app.post(
    "/account/sign-out",
    pageRoute(async (event) => {
      const { form } = await readPageForm(reposite, event);
      await endSession(reposite, event);
      return seeOther(safeNextPath(form.get("next") ?? undefined));
    }),
  );

  app.post(
    "/account/tokens",
    pageRoute(async (event) => {
      const { form, current } = await readPageForm(reposite, event);
      if (!current) return seeOther("/account");
      const name = form.get("name") ?? "";
      const lifetime = form.get("lifetime") ?? "";
      const session = toPageSession(reposite, current);
      try {
        // The secret goes into this response only: not into a URL, a cookie or a log.
        const created = await reposite.tokens.create(current.account.id, { name, lifetime: lifetime as TokenLifetime });
        return pageResponse(accountPage({ session, tokens: await reposite.tokens.list(current.account.id), created }), 201);
      } catch (error) {
        if (!RepositeError.isInstance(error) || (error.status !== 409 && error.status !== 422)) throw error;
        const tokens = await reposite.tokens.list(current.account.id);
        return pageResponse(accountPage({ session, tokens, error: error.message, form: { name, lifetime } }), error.status);
      }
    }),
  );

  app.post(
    "/account/tokens/:token_id/revoke",
    pageRoute(async (event) => {
      const { current } = await readPageForm(reposite, event);
      if (!current) return seeOther("/account");
      await reposite.tokens.revoke(current.account.id, getRouterParam(event, "token_id")!);
      return seeOther("/account?done=revoked");
    }),
  );

  dashboardRoutes(app, reposite);
}
