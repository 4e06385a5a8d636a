import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject, injectable, type InjectionToken } from "tsyringe";
import { CONFIG, type RepositeConfig } from "../config.js";
import { Leases } from "./leases.js";

/** How replicas show they are alive; the defaults suit production, tests shorten them. */
export interface ReplicaSettings {
  /** A replica that stopped renewing its lease this long is dead (HostingSettings.replicaLeaseMs sets it). Default 15 s. */
  leaseMs: number;
}

export const DEFAULT_REPLICA_SETTINGS: ReplicaSettings = { leaseMs: 15_000 };

/** Optional: register a `Partial<ReplicaSettings>` under it (`createReposite` does, from the hosting settings). */
export const REPLICA_SETTINGS: InjectionToken<Partial<ReplicaSettings>> = Symbol.for("reposite.ReplicaSettings");

const ID_FILE = "replica-id";
const presence = (replica: string) => `replica:${replica}`;

/**
 * Which server process (replica) this is, and whether others are alive. The id is kept in the
 * data directory, so a restarted server is the same replica and takes its own runs back at once;
 * replicas sharing a database each have a data directory of their own. A replica shows it is
 * alive by renewing its lease every third of `leaseMs`; one killed lets it expire.
 */
@injectable()
export class ReplicaIdentity {
  readonly id: string;
  private readonly settings: ReplicaSettings;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    @inject(CONFIG) config: RepositeConfig,
    @inject(Leases) private readonly leases: Leases,
    @inject(REPLICA_SETTINGS, { isOptional: true }) settings?: Partial<ReplicaSettings>,
  ) {
    this.settings = { ...DEFAULT_REPLICA_SETTINGS, ...settings };
    this.id = readOrMakeId(config.dataDir);
  }

  /** Takes this replica's lease and keeps renewing it until `stop()`. */
  async start(): Promise<void> {
    await this.renew();
    this.timer ??= setInterval(() => void this.renew(), Math.max(50, Math.floor(this.settings.leaseMs / 3)));
    this.timer.unref?.();
  }

  /** Stops renewing and gives the lease up (a clean shutdown: others need not wait for it to expire). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.leases.release(presence(this.id), this.id).catch(() => undefined);
  }

  /** Whether `replica` is this one, or another whose lease is current. */
  async isAlive(replica: string): Promise<boolean> {
    return replica === this.id || (await this.leases.holder(presence(replica))) === replica;
  }

  private renew(): Promise<void> {
    return this.leases
      .acquire(presence(this.id), this.id, this.settings.leaseMs)
      .then(() => undefined)
      .catch((error: unknown) => console.error("[reposite] renewing this replica's lease failed:", error));
  }
}

function readOrMakeId(dataDir: string): string {
  const file = join(dataDir, ID_FILE);
  try {
    const id = readFileSync(file, "utf8").trim();
    if (/^replica_[0-9a-f]{16}$/.test(id)) return id;
  } catch {
    // First start in this data directory.
  }
  const id = `replica_${randomBytes(8).toString("hex")}`;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}
