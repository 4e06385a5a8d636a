import { execFile, spawn } from "node:child_process";
import { chmod, copyFile, cp, mkdir, mkdtemp, realpath, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * Helpers for tests that use the real Docker engine through the `docker` CLI.
 *
 * No image registry is reachable on the machines these tests run on, so the base images are made
 * locally: `docker import` of a root filesystem assembled from this machine's own files.
 */

/** Whether Docker tests run, and whether they had to. */
export interface DockerForTests {
  available: boolean;
  /** `REPOSITE_REQUIRE_DOCKER=1`: a missing engine fails instead of skipping. */
  required: boolean;
  /** Why Docker is unavailable, or null. */
  reason: string | null;
}

/** Tags of the locally built base images; built once per machine and kept. */
export const LOCAL_BASE_IMAGES = {
  /** Node.js (this machine's binary and npm) with busybox for `sh`, a `node` user (uid 1000), /tmp. */
  node: "reposite-test/node:local",
  /** Busybox (static) alone: a shell, `httpd` and friends in about 2 MB. */
  busybox: "reposite-test/busybox:local",
} as const;

export type LocalBaseImages = typeof LOCAL_BASE_IMAGES;

/** Output of a finished `docker` command. */
export interface DockerResult {
  stdout: string;
  stderr: string;
}

/**
 * Runs `docker <args>`; rejects with the command and its stderr when it fails. `DOCKER_BUILDKIT=0`
 * keeps `docker build` on the classic builder, which needs no buildx plugin and is what the
 * Engine API (dockerode) uses.
 */
export function docker(args: string[], options: { input?: string | Buffer; timeoutMs?: number; host?: string } = {}): Promise<DockerResult> {
  return new Promise((resolve, reject) => {
    // `host`: another Engine than this machine's (DOCKER_HOST's form), such as a second node's (second-node.ts).
    const env = { ...process.env, DOCKER_BUILDKIT: "0", ...(options.host ? { DOCKER_HOST: options.host } : {}) };
    const child = spawn("docker", args, { env, stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const timer = options.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), options.timeoutMs) : null;
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      const result = { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() };
      if (code === 0) resolve(result);
      else reject(new Error(`docker ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${result.stderr || result.stdout}`));
    });
    child.stdin.end(options.input);
  });
}

/** True when `docker info` answers: the CLI is installed and the engine is running. */
export async function dockerAvailable(): Promise<boolean> {
  return (await dockerProblem()) === null;
}

async function dockerProblem(): Promise<string | null> {
  try {
    await docker(["info", "--format", "{{.ServerVersion}}"], { timeoutMs: 15_000 });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
  }
}

/**
 * Whether Docker tests can run. Use with top-level await and `describe.skipIf(!docker.available)`.
 * With `REPOSITE_REQUIRE_DOCKER=1` (CI) a missing engine throws, so the test file fails instead of
 * being skipped.
 */
export async function dockerForTests(): Promise<DockerForTests> {
  const required = process.env.REPOSITE_REQUIRE_DOCKER === "1";
  const reason = await dockerProblem();
  if (reason && required) throw new Error(`REPOSITE_REQUIRE_DOCKER=1 but Docker is not available: ${reason}`);
  return { available: reason === null, required, reason };
}

/** Bumped when the way the images are assembled changes, so old ones are rebuilt. */
const RECIPE = "2";

/**
 * Makes the base images tests need, without any registry, unless this machine has them already
 * (idempotent, and safe when several test processes ask at once). Needs Debian's `busybox-static`
 * (`/bin/busybox`); installs it with apt-get when missing and running as root.
 */
export async function buildLocalBaseImages(): Promise<LocalBaseImages> {
  const nodeStamp = `node-${process.version}-${RECIPE}`;
  const busyboxStamp = `busybox-${RECIPE}`;
  if ((await imageStamp(LOCAL_BASE_IMAGES.node)) === nodeStamp && (await imageStamp(LOCAL_BASE_IMAGES.busybox)) === busyboxStamp) {
    return LOCAL_BASE_IMAGES;
  }
  await withMachineLock("reposite-test-base-images", async () => {
    const busybox = await staticBusybox();
    if ((await imageStamp(LOCAL_BASE_IMAGES.busybox)) !== busyboxStamp) {
      await importRootFs(LOCAL_BASE_IMAGES.busybox, busyboxStamp, ['CMD ["sh"]'], async (root) => {
        await addBusybox(root, busybox);
        await addEtc(root, false);
      });
    }
    if ((await imageStamp(LOCAL_BASE_IMAGES.node)) !== nodeStamp) {
      await importRootFs(LOCAL_BASE_IMAGES.node, nodeStamp, ['CMD ["node"]'], async (root) => {
        await addBusybox(root, busybox);
        await addEtc(root, true);
        await addNode(root);
      });
    }
  });
  return LOCAL_BASE_IMAGES;
}

/** The `REPOSITE_TEST_IMAGE` stamp of a test image on the Engine, or null when it is missing or has none. */
export async function imageStamp(tag: string): Promise<string | null> {
  try {
    const { stdout } = await docker(["image", "inspect", "--format", "{{json .Config.Env}}", tag]);
    const env = JSON.parse(stdout) as string[] | null;
    return env?.find((entry) => entry.startsWith("REPOSITE_TEST_IMAGE="))?.slice("REPOSITE_TEST_IMAGE=".length) ?? null;
  } catch {
    return null;
  }
}

/**
 * Assembles a root filesystem in a temporary folder, tars it with root as owner (the `node` user's
 * home, when present, as uid 1000) and imports it as `tag`.
 */
async function importRootFs(tag: string, stamp: string, changes: string[], fill: (root: string) => Promise<void>): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "reposite-rootfs-"));
  try {
    const root = join(work, "root");
    await mkdir(root);
    await fill(root);
    const tarball = join(work, "rootfs.tar");
    const owned = ["--numeric-owner", "--owner=0", "--group=0"];
    await run("tar", ["-cf", tarball, ...owned, "--exclude=./home/node", "-C", root, "."]);
    if (await exists(join(root, "home/node"))) {
      await run("tar", ["-rf", tarball, "--numeric-owner", "--owner=1000", "--group=1000", "-C", root, "./home/node"]);
    }
    const env = "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    const args = ["import", "--change", env, "--change", `ENV REPOSITE_TEST_IMAGE=${stamp}`];
    for (const change of changes) args.push("--change", change);
    const previous = await docker(["image", "inspect", "--format", "{{.Id}}", tag]).then(
      ({ stdout }) => stdout.trim(),
      () => null,
    );
    await docker([...args, tarball, tag], { timeoutMs: 120_000 });
    if (previous) await docker(["rmi", previous]).catch(() => undefined); // the outdated image, now untagged
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function addBusybox(root: string, busybox: string): Promise<void> {
  await mkdir(join(root, "bin"), { recursive: true });
  await copyFile(busybox, join(root, "bin/busybox"));
  await chmod(join(root, "bin/busybox"), 0o755);
  const { stdout } = await run(busybox, ["--list"]);
  for (const applet of stdout.split("\n").map((line) => line.trim())) {
    if (applet && applet !== "busybox") await symlink("busybox", join(root, "bin", applet)).catch(() => undefined);
  }
  // Scripts start with `#!/usr/bin/env node` (npm among them).
  await mkdir(join(root, "usr/bin"), { recursive: true });
  await symlink("/bin/busybox", join(root, "usr/bin/env"));
}

async function addEtc(root: string, withNodeUser: boolean): Promise<void> {
  await mkdir(join(root, "etc"), { recursive: true });
  const users = ["root:x:0:0:root:/root:/bin/sh", "nobody:x:65534:65534:nobody:/nonexistent:/bin/false"];
  const groups = ["root:x:0:", "nogroup:x:65534:"];
  if (withNodeUser) {
    users.push("node:x:1000:1000::/home/node:/bin/sh");
    groups.push("node:x:1000:");
    await mkdir(join(root, "home/node"), { recursive: true });
  }
  await writeFile(join(root, "etc/passwd"), `${users.join("\n")}\n`);
  await writeFile(join(root, "etc/group"), `${groups.join("\n")}\n`);
  await writeFile(join(root, "etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
  await mkdir(join(root, "root"), { mode: 0o700 });
  await mkdir(join(root, "tmp"));
  await chmod(join(root, "tmp"), 0o1777);
}

/** This machine's node binary, the shared libraries `ldd` lists for it, and npm when it sits beside it. */
async function addNode(root: string): Promise<void> {
  const node = await realpath(process.execPath);
  await mkdir(join(root, "usr/local/bin"), { recursive: true });
  await copyFile(node, join(root, "usr/local/bin/node"));
  await chmod(join(root, "usr/local/bin/node"), 0o755);
  const { stdout } = await run("ldd", [node]);
  for (const line of stdout.split("\n")) {
    const library = /=>\s*(\/\S+)/.exec(line)?.[1] ?? /^\s*(\/\S+)\s+\(0x/.exec(line)?.[1];
    if (!library) continue;
    await mkdir(join(root, dirname(library)), { recursive: true });
    await copyFile(await realpath(library), join(root, library));
  }
  const npm = join(dirname(dirname(node)), "lib/node_modules/npm");
  if (await exists(join(npm, "bin/npm-cli.js"))) {
    await mkdir(join(root, "usr/local/lib/node_modules"), { recursive: true });
    await cp(npm, join(root, "usr/local/lib/node_modules/npm"), { recursive: true, verbatimSymlinks: true });
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
    await symlink("../lib/node_modules/npm/bin/npx-cli.js", join(root, "usr/local/bin/npx"));
  }
}

/** A statically linked busybox (Debian's busybox-static), installed with apt-get when missing. */
async function staticBusybox(): Promise<string> {
  const candidates = ["/bin/busybox", "/usr/bin/busybox"];
  const find = async () => {
    for (const path of candidates) if ((await exists(path)) && (await isStatic(path))) return path;
    return null;
  };
  const found = await find();
  if (found) return found;
  if (process.getuid?.() === 0) {
    await run("apt-get", ["install", "-y", "--no-install-recommends", "busybox-static"]).catch(async () => {
      await run("apt-get", ["update"]);
      await run("apt-get", ["install", "-y", "--no-install-recommends", "busybox-static"]);
    });
    const installed = await find();
    if (installed) return installed;
  }
  throw new Error("Docker tests need a static busybox at /bin/busybox: install Debian's busybox-static (apt-get install busybox-static).");
}

async function isStatic(path: string): Promise<boolean> {
  try {
    await run("ldd", [path]);
    return false;
  } catch {
    return true; // ldd fails on a static binary: "not a dynamic executable"
  }
}

/** A lock shared by every process on the machine: a folder in the temp dir, taken over when stale. */
async function withMachineLock<T>(name: string, body: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), `${name}.lock`);
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = Date.now() - ((await stat(lock).catch(() => null))?.mtimeMs ?? Date.now());
      if (age > 10 * 60_000) await rmdir(lock).catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`Timed out waiting for the lock ${lock}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await body();
  } finally {
    await rmdir(lock).catch(() => undefined);
  }
}


/** Polls `url` until it answers (any status), or throws after `timeoutMs`. */
export async function waitForHttp(url: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<Response> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      return await fetch(url, { signal: AbortSignal.timeout(2_000) });
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
    }
  }
  throw new Error(`${url} did not answer within ${options.timeoutMs ?? 30_000} ms: ${String(last)}`);
}

function run(command: string, args: string[]): Promise<DockerResult> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve({ stdout, stderr });
    });
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}


/**
 * Removes everything on the Engine carrying label `key=value`: containers (with their anonymous
 * volumes), images (a few rounds, children before parents), named volumes and networks. Tests
 * label what they make with their run's own value and call this at the end.
 */
export async function removeLabelled(key: string, value: string): Promise<void> {
  const filter = `label=${key}=${value}`;
  const ids = async (args: string[]) => (await docker(args)).stdout.split("\n").filter(Boolean);
  const containers = await ids(["ps", "-aq", "--filter", filter]);
  if (containers.length) await docker(["rm", "-f", "-v", ...containers]);
  for (let round = 0; round < 5; round++) {
    const images = [...new Set(await ids(["images", "-aq", "--filter", filter]))];
    if (images.length === 0) break;
    for (const image of images) await docker(["rmi", "-f", image]).catch(() => undefined);
  }
  const volumes = await ids(["volume", "ls", "-q", "--filter", filter]);
  if (volumes.length) await docker(["volume", "rm", "-f", ...volumes]);
  const networks = await ids(["network", "ls", "-q", "--filter", filter]);
  if (networks.length) await docker(["network", "rm", ...networks]);
}
