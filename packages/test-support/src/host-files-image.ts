import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLocalBaseImages, docker } from "./docker.js";

/** What goes into an image made from this machine's own files. */
export interface HostFilesImage {
  tag: string;
  /** `REPOSITE_TEST_IMAGE`'s value in the image: bumped when the recipe changes, so old images are made again. */
  stamp: string;
  /** Paths relative to `/`, added at the same place (links followed: Debian's toolchains are mostly links). */
  paths: string[];
  /** tar `--exclude` patterns. */
  exclude?: string[];
  /** Dockerfile lines after the files are added. */
  steps?: string[];
}

/**
 * Makes `tag` from the busybox base image and files of this machine (no registry is reachable for
 * a toolchain's official image), stamped so that `imageStamp(tag)` says it is current.
 */
export async function imageFromHostFiles(image: HostFilesImage): Promise<string> {
  const { busybox } = await buildLocalBaseImages();
  const work = await mkdtemp(join(tmpdir(), "reposite-host-files-image-"));
  try {
    await tar(["-chf", join(work, "files.tar"), ...(image.exclude ?? []).map((pattern) => `--exclude=${pattern}`), "-C", "/", ...image.paths]);
    await writeFile(join(work, "Dockerfile"), [`FROM ${busybox}`, "ADD files.tar /", ...(image.steps ?? []), `ENV REPOSITE_TEST_IMAGE=${image.stamp}`, ""].join("\n"));
    await docker(["build", "--quiet", "--tag", image.tag, work], { timeoutMs: 300_000 });
    return image.tag;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function tar(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("tar", args, { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => (error ? reject(new Error(`tar failed: ${stderr || error.message}`)) : resolve()));
  });
}
