import type { InjectionToken } from "tsyringe";

/**
 * Publish/subscribe by channel name, used for job events (stream deltas, the end of a job,
 * cancel requests). The embedded default works inside one process; several server replicas need
 * a shared implementation (for example Redis pub/sub).
 *
 * Events are JSON values: an implementation may serialize them, so listeners get an equal value,
 * not necessarily the same object, and must not change what they receive. Delivery may be
 * synchronous (in-process) or later (over a network); on one channel, a listener sees events in
 * the order they were published. There is no replay: only events published after `subscribe`
 * are delivered, so callers that need history keep it elsewhere (jobs store their deltas).
 */
export interface EventBus {
  /** Sends `event` to every current subscriber of `channel`. Never throws for a listener's failure. */
  publish(channel: string, event: unknown): void;
  /** Calls `listener` for each event published on `channel` from now on; the returned function stops it. */
  subscribe(channel: string, listener: (event: unknown) => void): () => void;
}

export const EVENTS: InjectionToken<EventBus> = Symbol.for("reposite.EventBus");
