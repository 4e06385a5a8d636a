import { RESOURCE_UNITS, type ResourcesView, type ResourceView } from "@reposite/contract";
import { priceLabel } from "../billing/price-labels.js";
import type { ProductPrice } from "../ports/payments.js";
import { FREE_TIER } from "./hosting-settings.js";

// What `GET …/deployment/resources` answers is the HTTP contract's.
export type { ResourceStep, ResourceView, ResourcesView } from "@reposite/contract";

/** Sizes offered (the spec's): 1, 2, 4, 8, 16 units; 1 memory unit = 1 GB, 1 disk unit = 5 GB. */
export { RESOURCE_UNITS } from "@reposite/contract";
export const MEMORY_UNIT_MB = 1024;
export const DISK_UNIT_MB = 5 * 1024;

/** Whether `value` is one of the sizes sold. */
export const isResourceStep = (value: unknown): value is (typeof RESOURCE_UNITS)[number] =>
  typeof value === "number" && (RESOURCE_UNITS as readonly number[]).includes(value);

/** What one resource of one app is now, and its price when it is sold on this server. */
export interface ResourceFacts {
  /** What the app runs with now, in MB. */
  limitMb: number;
  /** Units paid for (purchases that count). */
  units: number;
  /** The price of one unit; null when the resource is not sold here. */
  unitPrice: ProductPrice | null;
}

/**
 * One resource's view: its limit and paid units, and each step with what buying it would add
 * and charge. A step is `available` when the resource is on sale and it is bigger than what is
 * paid. Not on sale: no prices, nothing available.
 */
export function resourceView(facts: ResourceFacts, unitMb: number): ResourceView {
  const price = facts.unitPrice;
  return {
    limit_mb: facts.limitMb,
    units: facts.units,
    on_sale: price !== null,
    unit_price_label: price ? priceLabel(price) : "",
    steps: RESOURCE_UNITS.map((units) => {
      const add = Math.max(0, units - facts.units);
      return {
        units,
        mb: units * unitMb,
        available: price !== null && add > 0,
        add_units: add,
        price_label: price ? priceLabel(price, units) : "",
        add_price_label: price ? priceLabel(price, add) : "",
      };
    }),
  };
}

/** An app on the free tier of a server that sells nothing (512 MB memory, 3 GB disk or the server's `diskLimitMb`). */
export function freeTierResources(diskLimitMb: number = FREE_TIER.diskMb): ResourcesView {
  return {
    memory: resourceView({ limitMb: FREE_TIER.memoryMb, units: 0, unitPrice: null }, MEMORY_UNIT_MB),
    disk: resourceView({ limitMb: diskLimitMb, units: 0, unitPrice: null }, DISK_UNIT_MB),
  };
}
