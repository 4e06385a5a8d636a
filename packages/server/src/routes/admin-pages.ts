import { RepositeError, type Reposite } from "@reposite/core";
import type { H3 } from "h3";
import { requireBrowserSession } from "../http/browser-session.js";
import { isOperator, pageRoute, seeOther, toPageSession } from "../http/page-route.js";
import { adminPage } from "../pages/admin-page.js";
import { pageResponse } from "../pages/layout.js";

/**
 * The operator dashboard: operators only (REPOSITE_OPERATORS), and only in a browser session;
 * any Authorization header is answered 403 session_required, even a valid token's.
 */
export function adminPageRoutes(app: H3, reposite: Reposite): void {
  app.get(
    "/admin",
    pageRoute(async (event) => {
      const current = await requireBrowserSession(reposite, event);
      if (!current) return seeOther(`/account?next=${encodeURIComponent("/admin")}`);
      if (!isOperator(reposite, current.account)) {
        throw new RepositeError(403, "The operator dashboard is only for the operators of this server.", "operators_only");
      }
      const accounts = await reposite.accounts.list();
      const rows = await Promise.all(
        accounts.map(async (account) => ({
          account,
          tokens: (await reposite.tokens.list(account.id)).length,
          projects: (await reposite.projects.list(account.id)).length,
        })),
      );
      return pageResponse(adminPage({ session: toPageSession(reposite, current), rows }));
    }),
  );
}
