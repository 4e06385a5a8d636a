import { parseInput } from "@reposite/core";
import type { z } from "zod";

export interface FormShape {
  /** Checkbox fields: present is true, absent false. */
  booleans?: readonly string[];
  /** Fields sent several times (checkbox groups): a list, empty when none is ticked. */
  lists?: readonly string[];
  /** Text fields kept when empty (`""` means "remove" or "automatic" for them); other empty fields are left out. */
  keepEmpty?: readonly string[];
  /** Fields of the page only (a confirmation box), never sent to the service. */
  omit?: readonly string[];
}

/**
 * A form post as the contract operation's body, validated with that operation's own request
 * schema: the dashboard keeps no second copy of the rules, and a wrong field is the API's
 * `422 invalid_request` with the same message. The CSRF token is never part of the body.
 */
export function formInput<S extends z.ZodType>(schema: S, form: URLSearchParams, shape: FormShape = {}): z.output<S> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of form) {
    if (name === "csrf" || shape.omit?.includes(name) || shape.booleans?.includes(name) || shape.lists?.includes(name)) continue;
    if (value === "" && !shape.keepEmpty?.includes(name)) continue;
    body[name] = value;
  }
  for (const name of shape.booleans ?? []) body[name] = form.has(name);
  for (const name of shape.lists ?? []) body[name] = form.getAll(name);
  return parseInput(schema, body);
}
