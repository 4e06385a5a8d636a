import { watch, type FSWatcher } from "node:fs";
import { access, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type Docker from "dockerode";

const MiB = 1024 * 1024;

/** Where the Engine's BuildKit runs each step (cgroup v1, `cgroupfs` driver, the default parent `/docker`). */
const STEP_CGROUPS = "/sys/fs/cgroup/memory/docker/buildkit";

/**
 * Holds every BuildKit step to the build memory limit, with no extra swap. BuildKit in Docker 20.10
 * ignores the `/build` options the classic builder honoured (`memory`, `memswap`, and
 * `cgroupparent` too, checked on this Engine): it runs each `RUN` step in a cgroup of its own,
 * `/docker/buildkit/<id>`, made just before the step's process starts. While builds run, a watch on
 * that folder writes the limit into each new step cgroup (`memory.limit_in_bytes` and
 * `memory.memsw.limit_in_bytes`) as it appears, before the step has allocated anything; a step that
 * outgrows it is killed by the kernel (exit code 137). Should a step be past the limit already
 * (the kernel then refuses the write), its processes are killed the same way. Every step the
 * Engine runs while a Reposite build is under way gets the limit (the largest asked for, when
 * builds with different limits overlap): the Engine is Reposite's.
 */
export interface BuildMemoryLimit {
  /** Holds the steps of builds from when it answers to `release()` to `memoryMb`. */
  hold(memoryMb: number): Promise<() => void>;
}

/** The limit on this machine's Engine, or why there is none (the build runs unlimited then). */
export async function detectBuildMemoryLimit(docker: Docker, local: boolean): Promise<BuildMemoryLimit | { reason: string }> {
  if (!local) return { reason: "the Docker Engine runs on another machine: its build cgroups are not on this one" };
  const info = (await docker.info().catch(() => ({}))) as { CgroupDriver?: string; CgroupVersion?: string };
  if (info.CgroupVersion && info.CgroupVersion !== "1") return { reason: `the Engine uses cgroup v${info.CgroupVersion}; build limits are written for cgroup v1` };
  if (info.CgroupDriver && info.CgroupDriver !== "cgroupfs") return { reason: `the Engine's cgroup driver is ${info.CgroupDriver}; build limits need cgroupfs` };
  try {
    await access(join(STEP_CGROUPS, ".."), 2 /* W_OK */);
  } catch (error) {
    return { reason: `${join(STEP_CGROUPS, "..")} cannot be changed by this process (${(error as NodeJS.ErrnoException).code ?? error})` };
  }
  return new CgroupBuildMemoryLimit(STEP_CGROUPS);
}

class CgroupBuildMemoryLimit implements BuildMemoryLimit {
  private readonly held = new Map<symbol, number>();
  private readonly limited = new Set<string>();
  private watcher: FSWatcher | null = null;

  constructor(private readonly dir: string) {}

  async hold(memoryMb: number): Promise<() => void> {
    const key = Symbol("build");
    this.held.set(key, memoryMb);
    await this.start();
    return () => {
      this.held.delete(key);
      if (this.held.size === 0) this.stop();
    };
  }

  private async start(): Promise<void> {
    if (this.watcher) return;
    // Made by the Engine at its first BuildKit step; made here when no build ran yet, so it can be watched.
    await mkdir(this.dir, { recursive: true });
    if (this.watcher || this.held.size === 0) return;
    this.watcher = watch(this.dir, (_event, name) => {
      if (name) void this.limit(String(name));
    });
    this.watcher.on("error", () => this.stop());
    // Steps that started before the watch (another build's) are held too.
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(entries.filter((entry) => entry.isDirectory()).map((entry) => this.limit(entry.name)));
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = null;
    this.limited.clear();
  }

  private async limit(name: string): Promise<void> {
    if (this.limited.has(name) || this.held.size === 0) return;
    const cgroup = join(this.dir, name);
    const bytes = String(Math.max(...this.held.values()) * MiB);
    try {
      await writeFile(join(cgroup, "memory.limit_in_bytes"), bytes);
      this.limited.add(name);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone (the step ended) or not a cgroup: nothing to hold.
      if (code !== "EBUSY") return;
      // Already past the limit: ended as the kernel would have ended it.
      await killAll(cgroup);
      return;
    }
    // Without swap accounting the file is missing, and there is no swap to give.
    await writeFile(join(cgroup, "memory.memsw.limit_in_bytes"), bytes).catch(() => undefined);
  }
}

async function killAll(cgroup: string): Promise<void> {
  const pids = (await readFile(join(cgroup, "cgroup.procs"), "utf8").catch(() => "")).split("\n").filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
