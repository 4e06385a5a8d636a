/** A forum thread as stored: its opening post plus what the list needs. */
export interface ThreadRecord {
  id: string;
  site_id: string;
  title: string;
  body: string;
  author_id: string;
  /** Shown instead of the author's email (see memberDisplayName). */
  author_name: string;
  created_at: string;
  /** The thread's or its newest reply's time. */
  last_activity_at: string;
  reply_count: number;
}

export interface ReplyRecord {
  id: string;
  thread_id: string;
  body: string;
  author_id: string;
  author_name: string;
  created_at: string;
}

/** A thread as visitors see it: no member ids. */
export type ThreadView = Omit<ThreadRecord, "site_id" | "author_id">;
export type ReplyView = Omit<ReplyRecord, "author_id">;

export interface ThreadWithReplies {
  thread: ThreadView;
  /** Oldest first, the order a conversation is read in. */
  replies: ReplyView[];
}

export const toThreadView = ({ site_id: _site, author_id: _author, ...view }: ThreadRecord): ThreadView => view;
export const toReplyView = ({ author_id: _author, ...view }: ReplyRecord): ReplyView => view;
