import { DISK_UNIT_MB, MEMORY_UNIT_MB, RESOURCE_UNITS } from "../resources.js";

/** The memory sizes an app can be bought (MB): 1, 2, 4, 8 and 16 GB. */
export const MEMORY_SIZES_MB: readonly number[] = RESOURCE_UNITS.map((units) => units * MEMORY_UNIT_MB);

/** The disk sizes an app can be bought (MB): 5, 10, 20, 40 and 80 GB. */
export const DISK_SIZES_MB: readonly number[] = RESOURCE_UNITS.map((units) => units * DISK_UNIT_MB);

/**
 * The size to ask for after a resource ran out: the smallest of `sizes` above the peak the run
 * reached, and never less than the next size above what the app has now (an app killed at its
 * 512 MB limit peaked at 512 MB: it wants at least 1024). Past the largest size, the largest.
 */
export function sizeNeeded(sizes: readonly number[], peakMb: number, currentMb: number): number {
  const floor = Math.max(peakMb, currentMb);
  return sizes.find((size) => size > floor) ?? sizes[sizes.length - 1]!;
}

export const memoryNeeded = (peakMb: number, currentMb: number) => sizeNeeded(MEMORY_SIZES_MB, peakMb, currentMb);
export const diskNeeded = (usedMb: number, limitMb: number) => sizeNeeded(DISK_SIZES_MB, usedMb, limitMb);

/** `3072 MB` as a person reads it: `3 GB`; `1536 MB` stays in MB. */
export function formatMb(mb: number): string {
  if (mb >= 1024 && mb % 1024 === 0) return `${mb / 1024} GB`;
  return `${Math.round(mb).toLocaleString("en-US")} MB`;
}
