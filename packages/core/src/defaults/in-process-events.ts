import type { EventBus } from "../ports/events.js";

/**
 * Events inside one process: listeners are called synchronously, in the order they subscribed.
 * A listener that throws is logged and does not keep the event from the others.
 */
export function createInProcessEvents(): EventBus {
  const channels = new Map<string, Set<(event: unknown) => void>>();
  return {
    publish(channel, event) {
      const listeners = channels.get(channel);
      if (!listeners) return;
      // A copy: listeners may subscribe or unsubscribe while the event is delivered.
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          console.error(`[reposite] [events] a listener of ${channel} failed:`, error);
        }
      }
    },
    subscribe(channel, listener) {
      // Each subscription is its own entry, so the same function subscribed twice is called twice.
      const entry = (event: unknown) => listener(event);
      let listeners = channels.get(channel);
      if (!listeners) channels.set(channel, (listeners = new Set()));
      listeners.add(entry);
      return () => {
        const current = channels.get(channel);
        if (!current?.delete(entry)) return;
        if (current.size === 0) channels.delete(channel);
      };
    },
  };
}
