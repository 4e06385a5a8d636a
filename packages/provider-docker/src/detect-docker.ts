import { createDockerRuntime, type DockerRuntime, type DockerRuntimeOptions } from "./docker-runtime.js";

export interface DetectDockerOptions extends DockerRuntimeOptions {
  /** Milliseconds the Engine has to answer a ping; 2 s by default. */
  timeoutMs?: number;
}

/**
 * The Docker runtime when an Engine answers at `dockerHost` (or `DOCKER_HOST`, or the default
 * socket) within `timeoutMs`, otherwise null: the server calls it at start, and hosting is on
 * exactly when this finds an Engine.
 */
export async function detectDockerRuntime(options: DetectDockerOptions = {}): Promise<DockerRuntime | null> {
  const { timeoutMs = 2_000, ...runtimeOptions } = options;
  let runtime: DockerRuntime;
  try {
    runtime = createDockerRuntime(runtimeOptions);
  } catch {
    return null; // an unusable DOCKER_HOST
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
  try {
    const answer = await Promise.race([runtime.ping().then(() => "ok" as const), late]);
    return answer === "ok" ? runtime : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
