import type { DiskUsage } from "@reposite/contract";
import type { ContainerRuntime } from "../ports/container-runtime.js";
import { asOrchestrated } from "./runtime-from-ports.js";

/** What one app holds on disk, as `metrics.storage` shows it: the HTTP contract's `DiskUsage`. */
export type { DiskUsage } from "@reposite/contract";

const MB = 1024 * 1024;

/** Bytes to MB with one decimal. */
export const toMb = (bytes: number) => Math.round((bytes / MB) * 10) / 10;

/**
 * Measures the three parts of an app's disk on the runtime. The sum is taken from the bytes, so
 * `used_mb` is not the sum of the rounded parts.
 */
export async function measureDisk(
  runtime: ContainerRuntime,
  parts: { image: string; containerId: string; volume: string | null },
  limitMb: number,
  measuredAt: string,
): Promise<DiskUsage> {
  const [image, [container, volume]] = await Promise.all([runtime.imageSize(parts.image), appSizes(runtime, parts)]);
  const used = (image ?? 0) + (container ?? 0) + (volume ?? 0);
  return {
    used_mb: toMb(used),
    limit_mb: limitMb,
    over: used > limitMb * MB,
    image_mb: toMb(image ?? 0),
    container_mb: toMb(container ?? 0),
    volume_mb: toMb(volume ?? 0),
    measured_at: measuredAt,
  };
}

/**
 * The writable layer and the volume. An orchestrated runtime knows a volume only with its app (on
 * Swarm it is on the node the app is pinned to, not on the control plane's Engine): one
 * `diskUsage(app, volume)` reads both there.
 */
async function appSizes(runtime: ContainerRuntime, parts: { containerId: string; volume: string | null }): Promise<[number | null, number | null]> {
  const apps = asOrchestrated(runtime)?.apps;
  if (apps?.capabilities.disk && apps.diskUsage) {
    const usage = await apps.diskUsage(parts.containerId, parts.volume ?? undefined);
    return [usage.writableBytes, parts.volume ? usage.volumeBytes : 0];
  }
  return Promise.all([runtime.containerSize(parts.containerId), parts.volume ? runtime.volumeSize(parts.volume) : Promise.resolve(0)]);
}

/**
 * Whether a deploy would find room: the volume is what a deploy keeps (the image and the writable
 * layer are replaced by the new ones), so a volume that alone fills the limit leaves no room for
 * any image.
 */
export function volumeFillsDisk(usage: Pick<DiskUsage, "volume_mb" | "limit_mb">): boolean {
  return usage.volume_mb >= usage.limit_mb;
}
