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

/**
 * Follows a service update Swarm runs (start-first, health-gated, rollback on failure) until it
 * settles, telling each change of state. An update that pauses or outlives `timeoutMs` is an
 * error: nobody can say which version serves.
 */
export async function followUpdate(docker: Docker, id: string, since: string, timeoutMs: number, onProgress: (line: string) => void): Promise<RolloutResult> {
  const deadline = Date.now() + timeoutMs;
  let said = "";
  for (;;) {
    const info = (await docker.getService(id).inspect()) as { UpdateStatus?: UpdateStatus };
    const status = info.UpdateStatus;
    // Until the Engine records this update, the status is the previous one's.
    const current = status?.StartedAt && status.StartedAt >= since ? status : null;
    const line = current ? `${current.State}${current.Message ? `: ${current.Message}` : ""}` : "";
    if (line && line !== said) {
      said = line;
      onProgress(`Swarm update ${line}`);
    }
    const settled = current?.State ? SETTLED[current.State] : undefined;
    if (settled === "paused") throw new Error(`[provider-swarm] the update of ${id} paused: ${current?.Message ?? "no reason given"}`);
    if (settled) return { outcome: settled, message: current?.Message ?? current?.State ?? "" };
    if (Date.now() > deadline) throw new Error(`[provider-swarm] the update of ${id} did not settle within ${Math.round(timeoutMs / 1000)} s (${line || "not started"})`);
    await sleep(500);
  }
}
