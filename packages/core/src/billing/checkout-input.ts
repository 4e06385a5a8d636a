import { z } from "zod";
import { badRequest } from "../errors.js";
import { isResourceStep, RESOURCE_UNITS } from "../hosting/resources.js";
import type { Product } from "../ports/payments.js";
import { idField } from "../util/record-ids.js";
import { parseInput } from "../util/validation.js";

/** What a checkout asks for, checked. */
export type CheckoutInput =
  | { product: "embed"; site_id: string; additional: boolean; resources: { memory: number; disk: number } }
  | { product: "memory" | "disk"; site_id: string; units: number }
  | { product: "domain"; site_id: string; additional: boolean };

const STEPS = RESOURCE_UNITS.join(", ");

const invalidUnits = (field: string, value: unknown, zero: boolean) =>
  badRequest(`${field} must be one of ${zero ? "0, " : ""}${STEPS} (got ${JSON.stringify(value) ?? "nothing"}).`, "invalid_units", { field });

const seatSchema = z.object({ site_id: idField("site", "site_id"), additional: z.boolean().optional() });
const embedSchema = seatSchema.extend({
  resources: z.object({ memory: z.unknown().optional(), disk: z.unknown().optional() }, { message: "must be an object {memory, disk}" }).optional(),
});
const resourceSchema = z.object({ site_id: idField("site", "site_id"), units: z.unknown() });

/**
 * The body of `POST /billing/{product}/checkout`. `422 invalid_request` naming a wrong field;
 * `400 invalid_units` for units (or `resources` steps) that are not 1, 2, 4, 8, 16 (0 allowed in
 * `resources`: the free tier).
 */
export function parseCheckoutInput(product: Product, input: unknown): CheckoutInput {
  if (product === "memory" || product === "disk") {
    const { site_id, units } = parseInput(resourceSchema, input);
    if (!isResourceStep(units)) throw invalidUnits("units", units, false);
    return { product, site_id, units };
  }
  if (product === "embed") {
    const { site_id, additional, resources } = parseInput(embedSchema, input);
    const step = (field: "memory" | "disk") => {
      const value = resources?.[field] ?? 0;
      if (value !== 0 && !isResourceStep(value)) throw invalidUnits(`resources.${field}`, value, true);
      return value as number;
    };
    return { product, site_id, additional: additional ?? false, resources: { memory: step("memory"), disk: step("disk") } };
  }
  const { site_id, additional } = parseInput(seatSchema, input);
  return { product, site_id, additional: additional ?? false };
}

/** The body of `POST /billing/{product}/confirm`. */
export const confirmSchema = z.object({
  session_id: z
    .string({ message: "session_id is required: the id the checkout answered" })
    .min(1, "session_id is required: the id the checkout answered")
    .max(255, "session_id is too long"),
});
