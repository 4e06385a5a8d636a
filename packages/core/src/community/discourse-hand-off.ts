import { inject, injectable } from "tsyringe";
import { RepositeError } from "../errors.js";
import type { MemberView } from "../members/member.js";
import { MembersService } from "../members/members-service.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { SecretBox } from "../util/secret-box.js";

/**
 * Long enough for a browser to follow two redirects, short enough that a ticket left in a
 * browser's history or a proxy's log is of no use for long.
 */
export const DISCOURSE_TICKET_TTL_MS = 5 * 60_000;

/**
 * Authenticated with the ticket but not stored in it: a value sealed for another purpose (a
 * code-host grant, an app's environment) never opens as a ticket.
 */
const TICKET_CONTEXT = "discourse-hand-off";

/** Sealed values are about a hundred characters; refuse anything far larger unread. */
const MAX_TICKET_CHARS = 2048;

interface TicketContent {
  site_id: string;
  member_id: string;
  /** Milliseconds since the epoch, by the service's clock. */
  expires_at: number;
}

const invalid = () =>
  new RepositeError(401, "This link to the community is not valid. Open the community again from the site where you are a member.", "discourse_ticket_invalid");
const expired = () =>
  new RepositeError(401, "This link to the community has expired. Open the community again from the site where you are a member.", "discourse_ticket_expired");

/**
 * Discourse has one `discourse_connect_url`, so it asks the service host, not a site, who is
 * signing in. A member's session lives on their site's host only, so the site hands the member
 * over with a ticket: sealed with the server's key (nobody can make or change one) and valid for
 * a few minutes.
 */
@injectable()
export class DiscourseHandOff {
  constructor(
    @inject(SecretBox) private readonly box: SecretBox,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(MembersService) private readonly members: MembersService,
  ) {}

  /** A ticket naming the member, for the site host to pass to the service host in a redirect. */
  async issue(siteId: string, memberId: string): Promise<string> {
    const content: TicketContent = { site_id: siteId, member_id: memberId, expires_at: this.clock.now().getTime() + DISCOURSE_TICKET_TTL_MS };
    return this.box.seal(JSON.stringify(content), TICKET_CONTEXT);
  }

  /**
   * The member the ticket names, as they are now: `401 discourse_ticket_invalid` when it does not
   * open or the member is gone, `401 discourse_ticket_expired` when its time is up.
   */
  async redeem(ticket: unknown): Promise<MemberView> {
    if (typeof ticket !== "string" || !ticket || ticket.length > MAX_TICKET_CHARS) throw invalid();
    let content: TicketContent;
    try {
      content = parseContent(await this.box.open(ticket, TICKET_CONTEXT));
    } catch {
      throw invalid();
    }
    if (this.clock.now().getTime() >= content.expires_at) throw expired();
    const member = await this.members.get(content.site_id, content.member_id);
    if (!member) throw invalid();
    return member;
  }
}

/** Only we seal tickets, so a wrong shape means a bug or an old format: treated as not opening. */
function parseContent(json: string): TicketContent {
  const value = JSON.parse(json) as Partial<TicketContent> | null;
  if (typeof value?.site_id !== "string" || typeof value.member_id !== "string" || typeof value.expires_at !== "number") {
    throw new Error("[reposite] [discourse] The ticket has an unknown shape.");
  }
  return { site_id: value.site_id, member_id: value.member_id, expires_at: value.expires_at };
}
