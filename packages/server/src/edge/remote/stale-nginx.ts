import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Stops the nginx a previous `reposite edge` left running in `dir` (it was killed with SIGKILL,
 * so its nginx outlived it and still holds the port). Only a process whose command line names
 * this folder is touched: a pid file can outlive its process and the number be reused.
 */
export async function stopStaleNginx(dir: string, timeoutMs = 5_000): Promise<void> {
  const pid = Number((await readFile(join(dir, "nginx.pid"), "utf8").catch(() => "")).trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  const command = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).replace(/\0/g, " ");
  if (!command.includes("nginx") || !command.includes(dir)) return;
  process.kill(pid, "SIGQUIT");
  for (const deadline = Date.now() + timeoutMs; alive(pid) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
