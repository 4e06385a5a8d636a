import {
  buildDiscourseResponse,
  DiscourseHandOff,
  discourseLoginUrl,
  discourseUsername,
  memberDisplayName,
  RepositeError,
  verifyDiscourseRequest,
  type DiscourseOptions,
  type MemberView,
  type Reposite,
} from "@reposite/core";
import { deleteCookie, getCookie, getQuery, setCookie, type H3, type H3Event } from "h3";
import { pageRoute } from "../http/page-route.js";

/** Carries the hand-off ticket across Discourse's round trip, from `/community/discourse` to `/community/sso`. */
export const DISCOURSE_COOKIE = "reposite_discourse";

/** The cookie lives as long as the ticket in it. */
const COOKIE_MAX_AGE_SECONDS = 300;

const NOT_A_MEMBER = "Open the community from the site where you are a member.";

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
}

/**
 * DiscourseConnect for every published site with one Discourse, whose `discourse_connect_url` is
 * `{REPOSITE_BASE_URL}/community/sso`. A site host sends a signed-in member to
 * `/community/discourse` with a ticket (DiscourseHandOff); the ticket waits in a cookie while the
 * browser goes to Discourse and comes back to `/community/sso`, which answers Discourse for the
 * member the ticket names. Errors are pages: a person, not a program, follows these redirects.
 */
export function discourseRoutes(app: H3, reposite: Reposite, discourse: DiscourseOptions): void {
  const handOff = reposite.container.resolve(DiscourseHandOff);
  const cookieOptions = {
    httpOnly: true,
    sameSite: "lax",
    secure: new URL(reposite.config.baseUrl).protocol === "https:",
    path: "/community",
  } as const;

  app.get(
    "/community/discourse",
    pageRoute(async (event) => {
      const ticket = getQuery(event).ticket;
      await handOff.redeem(ticket);
      setCookie(event, DISCOURSE_COOKIE, ticket as string, { ...cookieOptions, maxAge: COOKIE_MAX_AGE_SECONDS });
      return redirect(discourseLoginUrl(discourse, "/"));
    }),
  );

  app.get(
    "/community/sso",
    pageRoute(async (event) => {
      const query = getQuery(event);
      const request = verifyDiscourseRequest(query.sso, query.sig, discourse);
      const member = await memberOf(event);
      const answer = buildDiscourseResponse(
        request,
        { external_id: member.id, email: member.email, username: discourseUsername(member.email), name: memberDisplayName(member.email) },
        discourse.secret,
      );
      deleteCookie(event, DISCOURSE_COOKIE, cookieOptions);
      return redirect(answer.url);
    }),
  );

  /** The member whose ticket the cookie holds; any failure reads the same to the person. */
  async function memberOf(event: H3Event): Promise<MemberView> {
    const ticket = getCookie(event, DISCOURSE_COOKIE);
    if (!ticket) throw new RepositeError(401, NOT_A_MEMBER, "discourse_ticket_invalid");
    try {
      return await handOff.redeem(ticket);
    } catch (error) {
      if (!RepositeError.isInstance(error) || error.status !== 401) throw error;
      throw new RepositeError(401, NOT_A_MEMBER, error.code);
    }
  }
}
