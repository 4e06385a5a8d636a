import { checkoutInputSchema } from "@reposite/contract";
import { badRequest } from "../errors.js";
import { isResourceStep, RESOURCE_UNITS } from "../hosting/resources.js";
import type { Product } from "../ports/payments.js";
import { parseInput } from "../util/validation.js";

/** The body of `POST /billing/{product}/confirm`: the contract's. */
export { confirmInputSchema as confirmSchema } from "@reposite/contract";

/** What a checkout asks for, checked. */
export type CheckoutInput =
  | { product: "embed"; site_id: string; additional: boolean; resources: { memory: number; disk: number } }
  | { product: "memory" | "disk"; site_id: string; units: number }
  | { product: "domain"; site_id: string; additional: boolean };

const STEPS = RESOURCE_UNITS.join(", ");

const invalidUnits = (field: string, value: unknown, zero: boolean) =>
  badRequest(`${field} must be one of ${zero ? "0, " : ""}${STEPS} (got ${JSON.stringify(value) ?? "nothing"}).`, "invalid_units", { field });

/**
 * The body of `POST /billing/{product}/checkout` (the contract's `checkoutInputSchema`), with the
 * fields that product uses. `422 invalid_request` naming a wrong field; `400 invalid_units` for
 * units (or `resources` steps) that are not 1, 2, 4, 8, 16 (0 allowed in `resources`: the free tier).
 */
export function parseCheckoutInput(product: Product, input: unknown): CheckoutInput {
  const { site_id, additional, resources, units } = parseInput(checkoutInputSchema, input);
  if (product === "memory" || product === "disk") {
    if (!isResourceStep(units)) throw invalidUnits("units", units, false);
    return { product, site_id, units };
  }
  if (product === "embed") {
    const step = (field: "memory" | "disk") => {
      const value: unknown = resources?.[field] ?? 0;
      if (value !== 0 && !isResourceStep(value)) throw invalidUnits(`resources.${field}`, value, true);
      return value as number;
    };
    return { product, site_id, additional: additional ?? false, resources: { memory: step("memory"), disk: step("disk") } };
  }
  return { product, site_id, additional: additional ?? false };
}
