import {
  CHECKOUT_CANCEL_PATH,
  CHECKOUT_RETURN_PATH,
  RepositeError,
  isProduct,
  isWellFormedId,
  type ProjectView,
  type Reposite,
} from "@reposite/core";
import { getQuery, type H3, type H3Event } from "h3";
import { requireBrowserSession, type CurrentSession } from "../http/browser-session.js";
import { pageRoute, readPageForm, seeOther, toPageSession } from "../http/page-route.js";
import { billingPage, PORTAL_PATH, type AppSize } from "../pages/billing-page.js";
import { checkoutCancelledPage, checkoutReturnPage, type ReturnProject } from "../pages/billing-return-page.js";
import { BILLING_PATH } from "../pages/billing-words.js";
import { CONTENT_SECURITY_POLICY, pageResponse } from "../pages/layout.js";

/** Refusals of the portal that the billing page says itself (payments off, nothing bought yet). */
const SAID_ON_THE_PAGE = new Set(["payments_off", "nothing_bought"]);

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The portal button's form post is answered with a redirect to the provider's portal, and browsers
 * hold the redirect to the page's `form-action` too. So where there is a portal button the policy
 * also lets forms lead to https addresses (and to http ones when this server itself runs on plain
 * http, as in development); every other page keeps `form-action 'self'`.
 */
function portalPolicy(baseUrl: string): string {
  const schemes = new URL(baseUrl).protocol === "http:" ? "https: http:" : "https:";
  return CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${schemes}`);
}

/**
 * The account's billing page, its portal button, and the pages a person lands on after the
 * provider's payment page: paid (`CHECKOUT_RETURN_PATH`) or left without paying
 * (`CHECKOUT_CANCEL_PATH`). A browser session only: an API token gets `403 session_required`.
 */
export function billingPageRoutes(app: H3, reposite: Reposite): void {
  const { billing } = reposite;

  /** The session, or a redirect to sign in that comes back to this very address. */
  const signedIn = async (event: H3Event): Promise<CurrentSession | Response> => {
    const current = await requireBrowserSession(reposite, event);
    if (current) return current;
    return seeOther(`/account?next=${encodeURIComponent(event.url.pathname + event.url.search)}`);
  };

  /** Each app of the account with its memory and disk now; unknown when hosting cannot answer. */
  const appSizes = (accountId: string, projects: ProjectView[]): Promise<AppSize[]> =>
    Promise.all(
      projects
        .filter((project) => project.app_status !== null)
        .map(async (project) => ({
          siteId: project.id,
          name: project.name,
          // No hosting on this server just now (503), or the app removed meanwhile (409): shown as unknown.
          resources: await reposite.hosting.resources(accountId, project.id).catch((error: unknown) => {
            if (RepositeError.isInstance(error) && (error.status === 503 || error.status === 409)) return null;
            throw error;
          }),
        })),
    );

  const billingResponse = async (current: CurrentSession, said: { notice?: string; error?: string } = {}, status = 200) => {
    const accountId = current.account.id;
    const [prices, summary, projects] = await Promise.all([billing.priceList(), billing.summary(accountId), reposite.projects.list(accountId)]);
    const document = billingPage({ session: toPageSession(reposite, current), prices, summary, projects, apps: await appSizes(accountId, projects), ...said });
    return pageResponse(document, status, summary.payments ? { "content-security-policy": portalPolicy(reposite.config.baseUrl) } : {});
  };

  /** The project as this account may see it: null when it is not theirs (or not a project id at all). */
  const ownProject = async (accountId: string, siteId: string | undefined): Promise<ReturnProject | null> => {
    if (!siteId || !isWellFormedId(siteId, "site")) return null;
    const project = (await reposite.projects.list(accountId)).find((candidate) => candidate.id === siteId);
    return project ? { id: project.id, name: project.name, hasApp: project.app_status !== null, url: project.url } : null;
  };

  app.get(
    BILLING_PATH,
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      return billingResponse(current);
    }),
  );

  // The portal: a session for this account at the provider, coming back to the billing page.
  app.post(
    PORTAL_PATH,
    pageRoute(async (event) => {
      // A token is refused as a token (before the form checks, which would call it another site).
      await requireBrowserSession(reposite, event);
      const { current } = await readPageForm(reposite, event);
      if (!current) return seeOther(`/account?next=${encodeURIComponent(BILLING_PATH)}`);
      try {
        return seeOther(await billing.portalUrl(current.account.id, `${reposite.config.baseUrl}${BILLING_PATH}`));
      } catch (error) {
        if (!RepositeError.isInstance(error) || !SAID_ON_THE_PAGE.has(error.code ?? "")) throw error;
        return billingResponse(current, { error: error.message }, error.status);
      }
    }),
  );

  // After paying: the session is confirmed with the provider for this account only (another's is 404).
  app.get(
    CHECKOUT_RETURN_PATH,
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      const sessionId = text(getQuery(event).session_id);
      if (!sessionId || sessionId.length > 255) {
        throw new RepositeError(400, "This return address has no checkout session in it. Your purchases are on the billing page.", "invalid_link");
      }
      const outcome = await billing.confirmSession(current.account.id, sessionId);
      const project = (await ownProject(current.account.id, outcome.site_id)) ?? { id: outcome.site_id, name: null, hasApp: false };
      return pageResponse(checkoutReturnPage({ session: toPageSession(reposite, current), outcome, project, again: event.url.pathname + event.url.search }));
    }),
  );

  // After leaving the payment page: nothing was bought. The project is named only when it is the caller's.
  app.get(
    CHECKOUT_CANCEL_PATH,
    pageRoute(async (event) => {
      const current = await signedIn(event);
      if (current instanceof Response) return current;
      const query = getQuery(event);
      const product = text(query.product);
      const project = await ownProject(current.account.id, text(query.site_id));
      return pageResponse(checkoutCancelledPage({ session: toPageSession(reposite, current), product: product && isProduct(product) ? product : null, project }));
    }),
  );
}
