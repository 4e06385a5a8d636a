import type { RolloutResult } from "@reposite/core";
import type Docker from "dockerode";
import { sleep } from "./engine.js";

interface UpdateStatus {
  State?: string;
  StartedAt?: string;
  Message?: string;
}

const SETTLED: Record<string, RolloutResult["outcome"] | "paused"> = {
  completed: "updated",
  rollback_completed: "rolled_back",
  paused: "paused",
  rollback_paused: "paused",
};

export interface FollowOptions {
  /** The update's own status starts at or after this moment (ISO); older ones are the previous update's. */
  since: string;
  timeoutMs: number;
  onProgress(line: string): void;
  /** Cancels the update: once aborted, `rollBack()` is asked for (unless Swarm is rolling back already). */
  signal?: AbortSignal;
  /** Asks Swarm to roll the service back to its previous spec (a server-side rollback). */
  rollBack(): Promise<void>;
}

/**
 * Follows a service update Swarm runs (start-first, health-gated, rollback on failure) until it
 * settles, telling each change of state. An update that pauses or outlives `timeoutMs` is an
 * error: nobody can say which version serves.
 *
 * A cancel while the update is under way rolls it back: the previous spec runs again, gated by
 * the rollback's own start-first order, and the answer is `cancelled` once Swarm says the rollback
 * completed (the previous version serves). An update Swarm reported completed before the cancel
 * was seen stands (`updated`), as a run on one engine that already answered its health check does.
 */
export async function followUpdate(docker: Docker, id: string, options: FollowOptions): Promise<RolloutResult> {
  const deadline = Date.now() + options.timeoutMs;
  let since = options.since;
  let cancelled = false;
  let said = "";
  for (;;) {
    const info = (await docker.getService(id).inspect()) as { UpdateStatus?: UpdateStatus };
    const status = info.UpdateStatus;
    // Until the Engine records this update (or the rollback asked for), the status is the one before.
    const current = status?.StartedAt && status.StartedAt >= since ? status : null;
    const line = current ? `${current.State}${current.Message ? `: ${current.Message}` : ""}` : "";
    if (line && line !== said) {
      said = line;
      options.onProgress(`Swarm update ${line}`);
    }
    const settled = current?.State ? SETTLED[current.State] : undefined;
    if (settled === "paused") throw new Error(`[provider-swarm] the update of ${id} paused: ${current?.Message ?? "no reason given"}`);
    if (settled === "updated" && !cancelled) return { outcome: settled, message: current?.Message ?? current?.State ?? "" };
    if (settled === "rolled_back") return { outcome: cancelled ? "cancelled" : settled, message: current?.Message ?? current?.State ?? "" };
    if (options.signal?.aborted && !cancelled) {
      cancelled = true;
      // Swarm rolling back on its own already ends on the previous version; asking again would fail (no previous spec left).
      if (!current?.State?.startsWith("rollback")) {
        options.onProgress("Cancelled: asking Swarm to roll back to the previous version …");
        since = new Date(Date.now() - 1_000).toISOString();
        await options.rollBack();
        continue;
      }
    }
    if (Date.now() > deadline) throw new Error(`[provider-swarm] the update of ${id} did not settle within ${Math.round(options.timeoutMs / 1000)} s (${line || "not started"})`);
    await sleep(500);
  }
}
