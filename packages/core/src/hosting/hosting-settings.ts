import type { InjectionToken } from "tsyringe";
import type { BareBaseImage } from "./deployment-setup.js";

/** The free tier every app runs with until payments exist: memory, CPUs, processes, disk. */
export const FREE_TIER = {
  memoryMb: 512,
  cpus: 1,
  pidsLimit: 256,
  diskMb: 3 * 1024,
} as const;

/** Limits and timings of app hosting; the defaults suit one server, tests shorten the timings. */
export interface HostingSettings {
  /** Builds under way at once on this server, all accounts together (each account has one at most). Default 2. */
  buildConcurrency: number;
  /** Memory a build may use, no extra swap: a step that outgrows it fails. Default 2048 MB. */
  buildMemoryMb: number;
  /** Longest a build may take. Default 15 minutes. */
  buildTimeoutMs: number;
  /** Longest a new container has to answer its health path. Default 60 s. */
  healthTimeoutMs: number;
  /** Longest pause between two health probes: they start 10 ms apart and space out as the wait grows. Default 500 ms. */
  healthIntervalMs: number;
  /** Longest the old container is given to finish requests under way after traffic switched. Default 30 s. */
  drainTimeoutMs: number;
  /** SIGTERM to SIGKILL when a container stops. Default 10 s. */
  stopGraceSeconds: number;
  /** Log lines wait at most this long before they go to the job stream. Default 250 ms. */
  logFlushMs: number;
  /** … or until this many wait. Default 50. */
  logFlushLines: number;
  /**
   * The image each bare-box choice runs, when this server keeps them under other names (a private
   * mirror; tests map them to images built locally). Unnamed ones run as named.
   */
  bareImages: Partial<Record<BareBaseImage, string>>;
  /**
   * Labels put on every container, image and volume of this server besides Reposite's own, and
   * required when it looks for its apps at start: several servers sharing one engine (or test
   * runs) each find only theirs.
   */
  labels: Record<string, string>;
  /**
   * Disk each app may use, image, writable layer and data volume together. Default the free
   * tier's 3 GB; a smaller one suits tests and small servers.
   */
  diskLimitMb: number;
  /** How often the disk of every running app is measured (besides after each deploy). Default 60 s. */
  diskCheckIntervalMs: number;
  /**
   * Replicas sharing a database: one that stopped renewing its lease this long is dead, and its
   * runs are taken up by another (under way: `failed`; queued: taken over). Default 15 s.
   */
  replicaLeaseMs: number;
}

export const DEFAULT_HOSTING_SETTINGS: HostingSettings = {
  buildConcurrency: 2,
  buildMemoryMb: 2048,
  buildTimeoutMs: 15 * 60_000,
  healthTimeoutMs: 60_000,
  healthIntervalMs: 500,
  drainTimeoutMs: 30_000,
  stopGraceSeconds: 10,
  logFlushMs: 250,
  logFlushLines: 50,
  bareImages: {},
  labels: {},
  diskLimitMb: FREE_TIER.diskMb,
  diskCheckIntervalMs: 60_000,
  replicaLeaseMs: 15_000,
};

/** Optional: register a `Partial<HostingSettings>` under it (`createReposite({ hosting })`). */
export const HOSTING_SETTINGS: InjectionToken<Partial<HostingSettings>> = Symbol.for("reposite.HostingSettings");
