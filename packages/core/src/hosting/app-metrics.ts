import type { MetricsView } from "@reposite/contract";
import type { ContainerStats } from "../ports/container-runtime.js";
import type { DiskUsage } from "./disk-usage.js";
import { toMb } from "./disk-usage.js";

/** `GET …/deployment/metrics`: the HTTP contract's shape (see `metricsSchema`). */
export type { MetricsView } from "@reposite/contract";

/** The app's limits, for the parts a stopped app cannot measure. */
export interface AppLimits {
  cpus: number;
  memoryMb: number;
}

export function toMetricsView(stats: ContainerStats | null, limits: AppLimits, storage: DiskUsage, measuredAt: string): MetricsView {
  return {
    running: stats !== null,
    cpu: { percent: stats ? round1(stats.cpuPercent / limits.cpus) : 0, cpus: limits.cpus },
    memory: {
      used_mb: stats ? toMb(stats.memoryBytes) : 0,
      // The limit the engine enforces when it tells it; else the one the app was started with.
      limit_mb: stats && stats.memoryLimitBytes > 0 ? toMb(stats.memoryLimitBytes) : limits.memoryMb,
    },
    network: { rx_bytes: stats?.networkRxBytes ?? 0, tx_bytes: stats?.networkTxBytes ?? 0 },
    storage,
    measured_at: measuredAt,
  };
}

const round1 = (value: number) => Math.round(value * 10) / 10;
