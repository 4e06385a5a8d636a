import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { EventBus } from "@reposite/core";
import { describe, expect, it, vi } from "vitest";

/** How a child process makes a bus on the same network: `import(module)[exportName](options)` is an `EventBus`. */
export interface EventsFactorySpec {
  module: string;
  exportName: string;
  options: unknown;
}

export interface EventsContractSetup {
  bus: EventBus;
  teardown(): Promise<void>;
  /** For buses shared between processes: another process publishes, this one listens. */
  inChild?: EventsFactorySpec;
}

const PUBLISHER = fileURLToPath(new URL("../events-publisher.mjs", import.meta.url));

/** Small and large events mixed (large ones go past size limits of network buses, such as NOTIFY's 8000 bytes). */
const mixedEvents = (count: number) =>
  Array.from({ length: count }, (_, i) => (i % 10 === 3 ? { type: "delta", i, t: `${i};`.repeat(20_000) } : { type: "delta", i, t: `text ${i}` }));

/** Waits until `predicate` holds: delivery may be synchronous (in-process) or later (a network bus). */
const until = (predicate: () => boolean) => vi.waitFor(() => expect(predicate()).toBe(true), { timeout: 5_000, interval: 5 });

/**
 * Publish/subscribe as core relies on it (job deltas, job ends, cancel requests), proved the same
 * way for each implementation. Events are JSON values; a bus may serialize them.
 */
export function eventsContract(name: string, setup: () => Promise<EventsContractSetup>) {
  describe(`events contract: ${name}`, () => {
    const withBus = async (test: (bus: EventBus, context: EventsContractSetup) => Promise<void>) => {
      const context = await setup();
      const { bus, teardown } = context;
      try {
        await test(bus, context);
      } finally {
        await teardown();
      }
    };

    it("delivers every event of a channel to its subscriber, in the order published, as equal JSON", () =>
      withBus(async (bus) => {
        const seen: unknown[] = [];
        const stop = bus.subscribe("jobs:a", (event) => seen.push(event));
        const events = Array.from({ length: 50 }, (_, i) => ({ type: "delta", i, t: `text ${i} "quoted"\nnewline ✓` }));
        for (const event of events) bus.publish("jobs:a", event);
        bus.publish("jobs:a", { type: "end", record: { nested: [1, null, true], status: "done" } });
        await until(() => seen.length === 51);
        expect(seen).toEqual([...events, { type: "end", record: { nested: [1, null, true], status: "done" } }]);
        stop();
      }));

    it("keeps channels apart, and gives each subscriber every event", () =>
      withBus(async (bus) => {
        const first: unknown[] = [];
        const second: unknown[] = [];
        const other: unknown[] = [];
        const stops = [
          bus.subscribe("jobs:a", (event) => first.push(event)),
          bus.subscribe("jobs:a", (event) => second.push(event)),
          bus.subscribe("jobs:b", (event) => other.push(event)),
        ];
        bus.publish("jobs:a", 1);
        bus.publish("jobs:b", 2);
        bus.publish("jobs:a", 3);
        await until(() => first.length === 2 && second.length === 2 && other.length === 1);
        expect(first).toEqual([1, 3]);
        expect(second).toEqual([1, 3]);
        expect(other).toEqual([2]);
        for (const stop of stops) stop();
      }));

    it("delivers nothing published before subscribing, and nothing after unsubscribing", () =>
      withBus(async (bus) => {
        const seen: unknown[] = [];
        const marker: unknown[] = [];
        const watch = bus.subscribe("jobs:a", (event) => marker.push(event));
        bus.publish("jobs:a", "before");
        await until(() => marker.length === 1);
        const stop = bus.subscribe("jobs:a", (event) => seen.push(event));
        bus.publish("jobs:a", "during");
        await until(() => seen.length === 1);
        stop();
        stop(); // a second call does no harm
        bus.publish("jobs:a", "after");
        await until(() => marker.length === 3);
        expect(seen).toEqual(["during"]);
        expect(marker).toEqual(["before", "during", "after"]);
        watch();
      }));

    it("publishing to a channel nobody listens on is fine", () =>
      withBus(async (bus) => {
        expect(() => bus.publish("jobs:nobody", { type: "delta", i: 0, t: "x" })).not.toThrow();
      }));

    it("keeps delivering to the others when a listener throws", () =>
      withBus(async (bus) => {
        const errors = vi.spyOn(console, "error").mockImplementation(() => {});
        const seen: unknown[] = [];
        const stops = [
          bus.subscribe("jobs:a", () => {
            throw new Error("listener failed");
          }),
          bus.subscribe("jobs:a", (event) => seen.push(event)),
        ];
        expect(() => bus.publish("jobs:a", 1)).not.toThrow();
        bus.publish("jobs:a", 2);
        await until(() => seen.length === 2);
        expect(seen).toEqual([1, 2]);
        for (const stop of stops) stop();
        errors.mockRestore();
      }));

    it("lets a listener unsubscribe while an event is delivered", () =>
      withBus(async (bus) => {
        const seen: unknown[] = [];
        const later: unknown[] = [];
        const stop: () => void = bus.subscribe("jobs:a", (event) => {
          seen.push(event);
          stop();
        });
        const stopLater = bus.subscribe("jobs:a", (event) => later.push(event));
        bus.publish("jobs:a", 1);
        bus.publish("jobs:a", 2);
        await until(() => later.length === 2);
        expect(seen).toEqual([1]);
        stopLater();
      }));

    it("delivers large events in order among small ones", () =>
      withBus(async (bus) => {
        const seen: unknown[] = [];
        const stop = bus.subscribe("jobs:large", (event) => seen.push(event));
        const events = mixedEvents(40);
        for (const event of events) bus.publish("jobs:large", event);
        await until(() => seen.length === events.length);
        expect(seen).toEqual(events);
        stop();
      }));

    it("delivers what another process publishes, in the order published", (test) =>
      withBus(async (bus, context) => {
        const spec = context.inChild;
        if (!spec) return test.skip("this bus works inside one process");
        const seen: unknown[] = [];
        const stop = bus.subscribe("jobs:other-process", (event) => seen.push(event));
        // Listening is proved before the other process starts: there is no replay.
        bus.publish("jobs:other-process", "listening");
        await until(() => seen.length === 1);
        const events = mixedEvents(100);
        const child = spawn(process.execPath, [PUBLISHER, JSON.stringify(spec), "jobs:other-process"], { stdio: ["pipe", "inherit", "inherit"] });
        child.stdin.end(JSON.stringify(events));
        const code = await new Promise((resolve) => child.once("exit", resolve));
        expect(code, "the publishing process's exit code").toBe(0);
        await until(() => seen.length === events.length + 1);
        expect(seen).toEqual(["listening", ...events]);
        stop();
      }));
  });
}
