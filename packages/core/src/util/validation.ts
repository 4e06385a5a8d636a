import type { z } from "zod";
import { RepositeError } from "../errors.js";

/**
 * Checks untrusted input against a schema. Fails with `422 invalid_request` naming the first
 * field that is wrong, so a person can fix the request without reading the schema.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join(".");
  const message = field ? `${field}: ${issue.message}` : issue.message;
  throw new RepositeError(422, message, "invalid_request", field ? { field } : undefined);
}
