import type { ContainerStats } from "../ports/container-runtime.js";
import type { DiskUsage } from "./disk-usage.js";
import { toMb } from "./disk-usage.js";

/**
 * `GET …/deployment/metrics`: what the app uses now. CPU is a percent of the app's own share (100
 * = all of its `cpus`); memory in MB against its limit; network bytes since its container started
 * (`rx` received by the app, `tx` sent); storage as `DiskUsage`. A stopped app answers
 * `running: false` with zero CPU, memory and network, and its storage as measured.
 */
export interface MetricsView {
  running: boolean;
  cpu: { percent: number; cpus: number };
  memory: { used_mb: number; limit_mb: number };
  network: { rx_bytes: number; tx_bytes: number };
  storage: DiskUsage;
  measured_at: string;
}

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
