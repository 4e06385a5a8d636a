import { execFile } from "node:child_process";
import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { imageStamp } from "./docker.js";
import { imageFromHostFiles } from "./host-files-image.js";

/** A Bun image for tests (no registry is reachable for `oven/bun`): the `bun` binary and a `bun` user, as the official image has. */
export const LOCAL_BUN_IMAGE = "reposite-test/bun:local";

/** The release npm publishes Bun's Linux binary in (the package `@oven/bun-linux-x64`). */
const BUN_VERSION = "1.4.5";
const RECIPE = `bun-${BUN_VERSION}-1`;
/** The C libraries the binary links against (`ldd`). */
const LIBRARIES = ["libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0"].map((name) => `lib/x86_64-linux-gnu/${name}`);

/**
 * Makes `reposite-test/bun:local` unless this machine has it: the busybox base image plus Bun's
 * binary, fetched with `npm pack` on this machine (which reaches the npm registry; containers do
 * not), as `/usr/local/bin/bun` with `bunx`, and the user `bun` (uid 1000). Returns null when the
 * package cannot be had.
 */
export async function buildLocalBunImage(): Promise<string | null> {
  if ((await imageStamp(LOCAL_BUN_IMAGE)) === RECIPE) return LOCAL_BUN_IMAGE;
  const work = await mkdtemp(join(tmpdir(), "reposite-bun-image-"));
  try {
    const packed = await npmPack(`@oven/bun-linux-x64@${BUN_VERSION}`, work).catch(() => null);
    if (!packed) return null;
    await tar(["-xzf", join(work, packed), "-C", work]);
    const binary = join(work, "package/bin/bun");
    if (!(await readdir(join(work, "package/bin")).catch(() => [] as string[])).includes("bun")) return null;
    await chmod(binary, 0o755);
    const inImage = relative("/", binary);
    return await imageFromHostFiles({
      tag: LOCAL_BUN_IMAGE,
      stamp: RECIPE,
      paths: [inImage, "lib64/ld-linux-x86-64.so.2", "etc/ssl/certs/ca-certificates.crt", ...LIBRARIES],
      steps: [
        `RUN mkdir -p /usr/local/bin && mv /${inImage} /usr/local/bin/bun && rm -rf /${relative("/", work)} && ln -s bun /usr/local/bin/bunx && echo "bun:x:1000:1000::/home/bun:/bin/sh" >> /etc/passwd && echo "bun:x:1000:" >> /etc/group && mkdir -p /home/bun && chown 1000:1000 /home/bun`,
      ],
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `npm pack <spec>` into `dir`: the tarball's file name. */
function npmPack(spec: string, dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("npm", ["pack", spec, "--pack-destination", dir, "--silent"], { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const file = stdout.trim().split("\n").pop();
      if (error || !file) reject(new Error(`npm pack ${spec} failed: ${stderr || error?.message}`));
      else resolve(file);
    });
  });
}

function tar(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("tar", args, (error, _stdout, stderr) => (error ? reject(new Error(`tar failed: ${stderr || error.message}`)) : resolve()));
  });
}
