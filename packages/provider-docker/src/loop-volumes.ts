import { execFile } from "node:child_process";
import { access, mkdir, readdir, readFile, rm, rmdir, stat, statfs, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";

export interface LoopVolumesOptions {
  /** Folder holding each volume's image file (`<name>.img`) and mount point (`<name>/`): the server's `<dataDir>/volumes`. */
  dir: string;
  /**
   * Size of each volume's filesystem in MB: the most disk an app can be given. The image file is
   * sparse, so it takes on the host only what the app writes. 80 GB by default (16 disk units).
   */
  capacityMb?: number;
}

/**
 * App volumes that cannot outgrow their limit: each is an ext4 filesystem in a loop-mounted image
 * file, and a write past the limit fails with ENOSPC at once instead of being found by the next
 * measurement. The limit is held by a reserved file at the filesystem's root (outside the `data`
 * folder the container sees) that takes all the room but the limit: a purchase shrinks it, a
 * lowered limit grows it, both at once and while the app runs. (Growing the filesystem itself
 * online needs CAP_SYS_RESOURCE, which a root server in a container often lacks; this does not.)
 */
export interface LoopVolumes {
  readonly dir: string;
  /** Makes the volume's filesystem the first time, mounts it when it is not, holds it to `limitMb`; answers the folder to mount into the container. */
  prepare(name: string, limitMb: number): Promise<string>;
  /** Holds a volume to a new limit now; when the app already holds more, it can write nothing more. */
  resize(name: string, limitMb: number): Promise<void>;
  /** Whether `name` is one of these volumes. */
  has(name: string): Promise<boolean>;
  /** Bytes the app's files take in the volume, or null when it is not one of these or not mounted. */
  usedBytes(name: string): Promise<number | null>;
  /** Unmounts the volume and deletes its image (its data goes). */
  remove(name: string): Promise<void>;
  /** Mounts one volume when it is not (after a reboot), before the container that binds it starts; nothing when it is not one of these. */
  mount(name: string): Promise<void>;
  /** Mounts every volume that is not (after a reboot): once, when the runtime first finds its volumes. */
  mountAll(): Promise<void>;
  /** Names of the volumes in the folder. */
  names(): Promise<string[]>;
}

const MiB = 1024 * 1024;
const RESERVED = ".reserved";
const BASELINE = ".baseline";
const DATA = "data";

/**
 * Loop volumes when this process can make them (root, loop devices, `mkfs.ext4`, `fallocate`): a
 * small filesystem is made, mounted and removed to be sure. Otherwise the reason, for the start-up
 * output.
 */
export async function detectLoopVolumes(options: LoopVolumesOptions): Promise<{ volumes: LoopVolumes } | { reason: string }> {
  if (process.platform !== "linux") return { reason: "loop mounts need Linux" };
  if (process.getuid?.() !== 0) return { reason: "the server does not run as root, so it cannot mount loop filesystems" };
  const volumes = createLoopVolumes(options);
  const probe = `probe-${process.pid}-${Date.now()}`;
  try {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    await volumes.prepare(probe, 1);
    return { volumes };
  } catch (error) {
    return { reason: `a loop-mounted filesystem could not be made in ${options.dir} (${firstLine(error)})` };
  } finally {
    await volumes.remove(probe).catch(() => undefined);
  }
}

export function createLoopVolumes(options: LoopVolumesOptions): LoopVolumes {
  const dir = resolve(options.dir);
  const capacityMb = options.capacityMb ?? 16 * 5 * 1024;
  const image = (name: string) => join(dir, `${safe(name)}.img`);
  const mountPoint = (name: string) => join(dir, safe(name));
  // One change at a time per volume: two prepares at once would make or mount it twice.
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(name: string, body: () => Promise<T>): Promise<T> => {
    const next = (queues.get(name) ?? Promise.resolve()).catch(() => undefined).then(body);
    queues.set(name, next);
    void next.finally(() => queues.get(name) === next && queues.delete(name)).catch(() => undefined);
    return next;
  };

  const mount = async (name: string) => {
    if (await isMounted(mountPoint(name))) return;
    await mkdir(mountPoint(name), { recursive: true, mode: 0o700 });
    await run("mount", ["-o", "loop,nodev,nosuid", image(name), mountPoint(name)]);
  };

  const hold = async (name: string, limitMb: number) => {
    const root = mountPoint(name);
    const fs = await statfs(root);
    const total = fs.blocks * fs.bsize;
    const baseline = await baselineOf(root);
    // The room the app's files may take is the limit: the reserved file holds the rest.
    const want = Math.max(0, Math.floor((total - baseline - limitMb * MiB) / fs.bsize) * fs.bsize);
    const reserved = join(root, RESERVED);
    const held = ((await stat(reserved).catch(() => null))?.blocks ?? 0) * 512;
    if (want < held) {
      await run("truncate", ["-s", String(want), reserved]);
    } else if (want > held) {
      await run("fallocate", ["-l", String(want), reserved]).catch(async () => {
        // The app holds more than the new limit: it gets no more room at all (and is over it).
        const free = (await statfs(root)).bavail * fs.bsize;
        if (free > 0) await run("fallocate", ["-l", String(held + free), reserved]).catch(() => undefined);
      });
    }
  };

  const make = async (name: string) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = image(name);
    await writeFile(file, "", { flag: "wx", mode: 0o600 });
    try {
      await run("truncate", ["-s", `${Math.max(capacityMb, 16)}M`, file]);
      // No reserved blocks (root apps get no extra room); lazy init keeps the sparse image small.
      await run("mkfs.ext4", ["-q", "-F", "-m", "0", "-E", "nodiscard,lazy_itable_init=1,lazy_journal_init=1", file]);
      await mount(name);
      const root = mountPoint(name);
      await rm(join(root, "lost+found"), { recursive: true, force: true });
      const fs = await statfs(root);
      // What the app can never use: metadata, and the clusters ext4 keeps back from `bavail` (16 MB).
      await writeFile(join(root, BASELINE), String((fs.blocks - fs.bavail) * fs.bsize + fs.bsize));
      // Docker copies what the image holds at the volume's path, and its owner, into it when empty.
      await mkdir(join(root, DATA), { mode: 0o755 });
    } catch (error) {
      await run("umount", [mountPoint(name)]).catch(() => undefined);
      await rm(file, { force: true });
      throw error;
    }
  };

  const exists = (name: string) => access(image(name)).then(() => true, () => false);

  return {
    dir,
    prepare: (name, limitMb) =>
      serial(name, async () => {
        if (!(await exists(name))) await make(name);
        else await mount(name);
        await hold(name, limitMb);
        return join(mountPoint(name), DATA);
      }),
    resize: (name, limitMb) =>
      serial(name, async () => {
        if (!(await exists(name))) return;
        await mount(name);
        await hold(name, limitMb);
      }),
    has: exists,
    async usedBytes(name) {
      const root = mountPoint(name);
      if (!(await exists(name)) || !(await isMounted(root))) return null;
      const fs = await statfs(root);
      const baseline = await baselineOf(root);
      const reserved = ((await stat(join(root, RESERVED)).catch(() => null))?.blocks ?? 0) * 512;
      return Math.max(0, (fs.blocks - fs.bavail) * fs.bsize - baseline - reserved);
    },
    remove: (name) =>
      serial(name, async () => {
        const root = mountPoint(name);
        if (await isMounted(root)) await run("umount", [root]);
        // Only an empty mount point goes: were the unmount not done, the data stays where it is.
        await rmdir(root).catch(() => undefined);
        await rm(image(name), { force: true });
      }),
    async names() {
      const files = await readdir(dir).catch(() => [] as string[]);
      return files.filter((each) => each.endsWith(".img")).map((file) => file.slice(0, -".img".length));
    },
    mount: (name) =>
      serial(name, async () => {
        if (await exists(name)) await mount(name);
      }),
    async mountAll() {
      for (const name of await this.names()) {
        await this.mount(name).catch((error: unknown) => console.error(`[provider-docker] cannot mount the volume ${name}: ${firstLine(error)}`));
      }
    },
  };
}

/** Bytes of a volume's filesystem the app can never use (written by `make`). */
async function baselineOf(root: string): Promise<number> {
  return Number(await readFile(join(root, BASELINE), "utf8").catch(() => "0")) || 0;
}

/** Whether a filesystem is mounted at `path` (as /proc/self/mountinfo lists it). */
async function isMounted(path: string): Promise<boolean> {
  const info = await readFile("/proc/self/mountinfo", "utf8");
  // Field 5 is the mount point, with space, tab, newline and backslash written in octal.
  return info.split("\n").some((line) => line.split(" ")[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))) === path);
}

/** Volume names are the runtime's own (`reposite-data-<site>`); anything else is refused rather than joined into a path. */
function safe(name: string): string {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name)) throw new Error(`[provider-docker] not a volume name: ${JSON.stringify(name)}`);
  return name;
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")}: ${stderr.trim() || error.message}`));
      else resolvePromise();
    });
  });
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
