import { inject, injectable } from "tsyringe";
import { z } from "zod";
import { conflict, notFound, RepositeError } from "../errors.js";
import { memberDisplayName, type MemberView } from "../members/member.js";
import { CLOCK, type Clock } from "../ports/clock.js";
import { IDS, type IdGenerator } from "../ports/ids.js";
import { LOCKS, type Locks } from "../ports/locks.js";
import { STORAGE, type RecordStorage } from "../ports/storage.js";
import type { PublishedSite } from "../sites/published-site.js";
import { RateLimiter, type RateLimit } from "../util/rate-limiter.js";
import { isWellFormedId } from "../util/record-ids.js";
import { formatTimestamp } from "../util/timestamps.js";
import { parseInput } from "../util/validation.js";
import { toReplyView, toThreadView, type ReplyRecord, type ReplyView, type ThreadRecord, type ThreadView, type ThreadWithReplies } from "./thread.js";

export const THREAD_TITLE_MAX = 200;
export const POST_BODY_MAX = 20_000;
/** Threads a forum page lists: the most recently active. */
export const THREADS_LISTED = 100;
/** Replies one thread takes; past that a new thread is the way on. */
export const REPLIES_PER_THREAD = 1_000;
/** Posts (threads and replies) per member, against flooding. */
export const FORUM_POSTS_PER_MEMBER: RateLimit = { name: "forum-post", max: 20, windowMs: 10 * 60_000 };

/** What the forum needs to know of a published site. */
export type ForumSite = Pick<PublishedSite, "site_id" | "community">;

const body = z
  .string({ message: "write something" })
  .trim()
  .min(1, { message: "write something" })
  .max(POST_BODY_MAX, { message: `a post may have at most ${POST_BODY_MAX.toLocaleString("en")} characters` });

const threadSchema = z.object({
  title: z
    .string({ message: "a title is required" })
    .trim()
    .min(1, { message: "a title is required" })
    .max(THREAD_TITLE_MAX, { message: `a title may have at most ${THREAD_TITLE_MAX} characters` }),
  body,
});
const replySchema = z.object({ body });

const threadKey = (siteId: string, threadId: string) => `forum-threads:${siteId}:${threadId}`;
const repliesKey = (siteId: string, threadId: string) => `forum-replies:${siteId}:${threadId}`;
/** Thread ids, most recently active first: a post moves its thread to the front. */
const indexKey = (siteId: string) => `forum-index:${siteId}`;

/**
 * The built-in forum of a published site: threads and replies by its signed-in members. It is
 * open only while the published site's `community` is on; reading needs no sign-in, posting does.
 */
@injectable()
export class ForumService {
  constructor(
    @inject(STORAGE) private readonly storage: RecordStorage,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(IDS) private readonly ids: IdGenerator,
    @inject(LOCKS) private readonly locks: Locks,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
  ) {}

  /** Threads, most recently active first. */
  async listThreads(site: ForumSite): Promise<ThreadView[]> {
    assertOpen(site);
    const ids = ((await this.storage.getItem<string[]>(indexKey(site.site_id))) ?? []).slice(0, THREADS_LISTED);
    const records = await Promise.all(ids.map((id) => this.storage.getItem<ThreadRecord>(threadKey(site.site_id, id))));
    return records.filter((record): record is ThreadRecord => record !== null).map(toThreadView);
  }

  async getThread(site: ForumSite, threadId: string): Promise<ThreadWithReplies> {
    assertOpen(site);
    assertThreadId(threadId);
    const thread = await this.storage.getItem<ThreadRecord>(threadKey(site.site_id, threadId));
    if (!thread) throw notFound("There is no such thread. It may have been removed.", "thread_not_found");
    const replies = (await this.storage.getItem<ReplyRecord[]>(repliesKey(site.site_id, threadId))) ?? [];
    return { thread: toThreadView(thread), replies: replies.map(toReplyView) };
  }

  async createThread(site: ForumSite, author: MemberView | null, input: { title: string; body: string }): Promise<ThreadView> {
    assertOpen(site);
    const member = assertMember(site, author);
    const { title, body } = parseInput(threadSchema, input);
    await this.takePost(member);
    const now = formatTimestamp(this.clock.now());
    const thread: ThreadRecord = {
      id: this.ids.newId("thread"),
      site_id: site.site_id,
      title,
      body,
      author_id: member.id,
      author_name: memberDisplayName(member.email),
      created_at: now,
      last_activity_at: now,
      reply_count: 0,
    };
    await this.storage.setItem(threadKey(site.site_id, thread.id), thread);
    await this.bump(site.site_id, thread.id);
    return toThreadView(thread);
  }

  async reply(site: ForumSite, author: MemberView | null, threadId: string, input: { body: string }): Promise<ReplyView> {
    assertOpen(site);
    const member = assertMember(site, author);
    assertThreadId(threadId);
    const { body } = parseInput(replySchema, input);
    const key = threadKey(site.site_id, threadId);
    if (!(await this.storage.getItem<ThreadRecord>(key))) throw notFound("There is no such thread. It may have been removed.", "thread_not_found");
    await this.takePost(member);
    const reply = await this.locks.withLock(key, async () => {
      const thread = await this.storage.getItem<ThreadRecord>(key);
      if (!thread) throw notFound("There is no such thread. It may have been removed.", "thread_not_found");
      const replies = (await this.storage.getItem<ReplyRecord[]>(repliesKey(site.site_id, threadId))) ?? [];
      if (replies.length >= REPLIES_PER_THREAD) {
        throw conflict(`This thread has ${REPLIES_PER_THREAD} replies, the most it takes. Start a new thread.`, "thread_full");
      }
      const now = formatTimestamp(this.clock.now());
      const record: ReplyRecord = {
        id: this.ids.newId("reply"),
        thread_id: threadId,
        body,
        author_id: member.id,
        author_name: memberDisplayName(member.email),
        created_at: now,
      };
      await this.storage.setItem(repliesKey(site.site_id, threadId), [...replies, record]);
      await this.storage.setItem(key, { ...thread, last_activity_at: now, reply_count: replies.length + 1 });
      return record;
    });
    await this.bump(site.site_id, threadId);
    return toReplyView(reply);
  }

  /** Removes the site's forum: every thread, its replies and the list. For a purge of the project. */
  async purgeSite(siteId: string): Promise<void> {
    if (!isWellFormedId(siteId, "site")) return;
    for (const prefix of [`forum-threads:${siteId}`, `forum-replies:${siteId}`]) {
      for (const key of await this.storage.getKeys(prefix)) await this.storage.removeItem(key);
    }
    await this.locks.withLock(indexKey(siteId), () => this.storage.removeItem(indexKey(siteId)));
  }

  /** Moves a thread to the front of the list. */
  private bump(siteId: string, threadId: string): Promise<void> {
    return this.locks.withLock(indexKey(siteId), async () => {
      const ids = (await this.storage.getItem<string[]>(indexKey(siteId))) ?? [];
      await this.storage.setItem(indexKey(siteId), [threadId, ...ids.filter((id) => id !== threadId)]);
    });
  }

  private async takePost(member: MemberView): Promise<void> {
    const quota = await this.limiter.take(FORUM_POSTS_PER_MEMBER, member.id);
    if (!quota.allowed) {
      const minutes = Math.max(1, Math.ceil(quota.retryAfter / 60));
      throw new RepositeError(429, `You posted a lot in a short time; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, "rate_limited", {
        retry_after: quota.retryAfter,
      });
    }
  }
}

function assertOpen(site: ForumSite): void {
  if (!site.community) throw notFound("This site has no community forum.", "community_closed");
}

/** Ids come from URLs: anything but an id's characters is no thread (and never reaches a storage key). */
function assertThreadId(threadId: string): void {
  if (!isWellFormedId(threadId, "thread")) throw notFound("There is no such thread. It may have been removed.", "thread_not_found");
}

function assertMember(site: ForumSite, author: MemberView | null): MemberView {
  if (!author) throw new RepositeError(401, "Sign in to post in the forum.", "sign_in_required");
  if (author.site_id !== site.site_id) throw new RepositeError(403, "Only members of this site may post here.", "not_a_member");
  return author;
}
