export {
  ForumService,
  THREAD_TITLE_MAX,
  POST_BODY_MAX,
  THREADS_LISTED,
  REPLIES_PER_THREAD,
  FORUM_POSTS_PER_MEMBER,
  type ForumSite,
} from "./forum-service.js";
export type { ThreadView, ReplyView, ThreadWithReplies } from "./thread.js";
export {
  signDiscoursePayload,
  verifyDiscourseRequest,
  buildDiscourseResponse,
  discourseUsername,
  discourseLoginUrl,
  type DiscourseOptions,
  type DiscourseConnectRequest,
  type DiscourseUser,
} from "./discourse-connect.js";
export { DiscourseHandOff, DISCOURSE_TICKET_TTL_MS } from "./discourse-hand-off.js";
