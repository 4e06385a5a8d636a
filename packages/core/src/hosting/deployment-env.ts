import { MASKED_VALUE, type EnvView } from "@reposite/contract";

// The env's input rules and its read are the HTTP contract's (`PUT`/`GET …/deployment/env`).
export { envInputSchema, MASKED_VALUE, MAX_ENV_VALUE_BYTES, RESERVED_ENV_KEYS, type EnvView } from "@reposite/contract";

export const MAX_ENV_KEYS = 100;

export function maskedEnv(keys: Iterable<string>): EnvView {
  return { env: Object.fromEntries([...keys].sort().map((key) => [key, MASKED_VALUE])) };
}
