import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Removes a test server's data directory. A server running as root mounts each app volume (a
 * loop-mounted filesystem under `<data>/volumes`) and leaves it mounted when it stops, as apps
 * outlive the server; those mounts are undone first (deepest first), or removing the folder fails
 * with EBUSY and leaves loop devices behind.
 */
export async function removeDataDir(dir: string): Promise<void> {
  const root = resolve(dir);
  const mounts = await readFile("/proc/self/mounts", "utf8").catch(() => "");
  const under = mounts
    .split("\n")
    .map((line) => line.split(" ")[1]?.replace(/\\040/g, " "))
    .filter((point): point is string => Boolean(point) && (point === root || point!.startsWith(root + sep)))
    .sort((a, b) => b.length - a.length);
  for (const point of under) await run("umount", [point]).catch(() => run("umount", ["-l", point]).catch(() => undefined));
  await rm(root, { recursive: true, force: true });
}
