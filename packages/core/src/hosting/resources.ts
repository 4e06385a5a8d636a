import { FREE_TIER } from "./hosting-settings.js";

/** One size a resource could be bought at (the spec's Step). */
export interface ResourceStep {
  units: number;
  mb: number;
  available: boolean;
  /** Units not yet paid for at this step (the size is the total, not an addition). */
  add_units: number;
  price_label: string;
  add_price_label: string;
}

export interface ResourceView {
  /** What the app runs with now. */
  limit_mb: number;
  /** Units already paid for. */
  units: number;
  on_sale: boolean;
  unit_price_label: string;
  steps: ResourceStep[];
}

/** `GET …/deployment/resources`. */
export interface ResourcesView {
  memory: ResourceView;
  disk: ResourceView;
}

/** Sizes offered (the spec's): 1, 2, 4, 8, 16 units; 1 memory unit = 1 GB, 1 disk unit = 5 GB. */
export const RESOURCE_UNITS = [1, 2, 4, 8, 16] as const;
export const MEMORY_UNIT_MB = 1024;
export const DISK_UNIT_MB = 5 * 1024;

/**
 * Until payments exist every app runs on the free tier (512 MB memory, 3 GB disk or the server's
 * `diskLimitMb`) and nothing is on sale: the steps are listed as the sizes there will be, none
 * `available`, with no prices.
 */
export function freeTierResources(diskLimitMb: number = FREE_TIER.diskMb): ResourcesView {
  return {
    memory: notOnSale(FREE_TIER.memoryMb, MEMORY_UNIT_MB),
    disk: notOnSale(diskLimitMb, DISK_UNIT_MB),
  };
}

function notOnSale(limitMb: number, unitMb: number): ResourceView {
  return {
    limit_mb: limitMb,
    units: 0,
    on_sale: false,
    unit_price_label: "",
    steps: RESOURCE_UNITS.map((units) => ({ units, mb: units * unitMb, available: false, add_units: units, price_label: "", add_price_label: "" })),
  };
}
