import type { AppState } from "@reposite/core";

/** A task as the Engine lists it (the fields read here). */
export interface SwarmTask {
  ID: string;
  NodeID?: string;
  CreatedAt?: string;
  DesiredState?: string;
  Spec?: { ContainerSpec?: { Image?: string } };
  Status?: { Timestamp?: string; State?: string; Message?: string; Err?: string; ContainerStatus?: { ContainerID?: string; ExitCode?: number } };
}

/** Task states after which the task never runs again. */
const ENDED = new Set(["complete", "failed", "shutdown", "rejected", "orphaned", "remove"]);

export const newestFirst = (tasks: SwarmTask[]) => [...tasks].sort((a, b) => (b.CreatedAt ?? "").localeCompare(a.CreatedAt ?? ""));

/** The task running now, if any. */
export function runningTask(tasks: SwarmTask[]): SwarmTask | null {
  return newestFirst(tasks).find((task) => task.Status?.State === "running" && task.DesiredState === "running") ?? null;
}

/** The task whose container is up now (running, or started and waiting for its health check): exec, stats and disk reach it. */
export function liveTask(tasks: SwarmTask[]): SwarmTask | null {
  return newestFirst(tasks).find((task) => (task.Status?.State === "running" || task.Status?.State === "starting") && task.DesiredState === "running") ?? null;
}

/** The newest task that ended on its own (not one Swarm shut down for an update or a stop). */
export function lastEndedTask(tasks: SwarmTask[]): SwarmTask | null {
  return newestFirst(tasks).find((task) => ENDED.has(task.Status?.State ?? "") && task.Status?.State !== "shutdown" && task.Status?.ContainerStatus?.ExitCode !== undefined) ?? null;
}

/**
 * The app's state from its service and tasks. Whether the last task that ended was OOM-killed is
 * only known to the Engine of its node (`oomKilled`); without it, an exit code 137 under a memory
 * limit is taken as one.
 */
export function appState(info: { ID: string; Spec?: { Mode?: { Replicated?: { Replicas?: number } }; TaskTemplate?: { ContainerSpec?: { Image?: string } } } }, tasks: SwarmTask[], oomKilled: boolean | null): AppState {
  const running = runningTask(tasks);
  const ended = lastEndedTask(tasks);
  const shown = running ?? ended ?? newestFirst(tasks)[0] ?? null;
  const exitCode = ended?.Status?.ContainerStatus?.ExitCode ?? null;
  return {
    id: info.ID,
    wanted: (info.Spec?.Mode?.Replicated?.Replicas ?? 1) > 0,
    running: running !== null,
    exitCode,
    oomKilled: oomKilled ?? exitCode === 137,
    startedAt: running?.Status?.Timestamp ?? null,
    finishedAt: running ? null : (ended?.Status?.Timestamp ?? null),
    image: info.Spec?.TaskTemplate?.ContainerSpec?.Image ?? "",
    message: shown?.Status?.Err || null,
  };
}
