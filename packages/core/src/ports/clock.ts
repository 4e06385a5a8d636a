import type { InjectionToken } from "tsyringe";

/** The current time. Replaced in tests to move time forward without waiting. */
export interface Clock {
  now(): Date;
}

export const CLOCK: InjectionToken<Clock> = Symbol.for("reposite.Clock");
