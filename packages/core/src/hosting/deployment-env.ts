import { z } from "zod";

/** What a read shows in place of every value: the same for all, so not even the length shows. */
export const MASKED_VALUE = "********";

export const MAX_ENV_KEYS = 100;
export const MAX_ENV_VALUE_BYTES = 32 * 1024;

/** POSIX names: letters, digits and `_`, not starting with a digit. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Set by Reposite from the setup (`port`); a value of the app's own would be overwritten. */
export const RESERVED_ENV_KEYS = ["PORT"] as const;

export const envInputSchema = z.strictObject({
  env: z.record(
    z
      .string()
      .regex(ENV_NAME, "names must be letters, digits and _ (not starting with a digit), at most 128 characters")
      .refine((name) => !(RESERVED_ENV_KEYS as readonly string[]).includes(name), "PORT is set from the setup's port; change that instead"),
    z
      .string({ message: "values must be strings, or null to remove the key" })
      .refine((value) => Buffer.byteLength(value) <= MAX_ENV_VALUE_BYTES, `values must be at most ${MAX_ENV_VALUE_BYTES / 1024} KB`)
      .refine((value) => !value.includes("\u0000"), "values must not contain NUL")
      .nullable(),
    { message: "env must be an object of names to string values (null removes a name)" },
  ),
});

/** `GET …/deployment/env`: every name, every value masked. */
export interface EnvView {
  env: Record<string, string>;
}

export function maskedEnv(keys: Iterable<string>): EnvView {
  return { env: Object.fromEntries([...keys].sort().map((key) => [key, MASKED_VALUE])) };
}
