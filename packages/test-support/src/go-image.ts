import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLocalBaseImages, docker } from "./docker.js";

/** The Go toolchain image tests build Go apps with (no registry is reachable for `golang:`). */
export const LOCAL_GO_IMAGE = "reposite-test/go:local";

/** Debian's Go toolchain (`apt-get install golang-go`) and what it needs to run. */
const GO_ROOT = "usr/lib/go-1.19";
const RECIPE = "go-1.19-1";

/**
 * Makes `reposite-test/go:local` unless this machine has it: the busybox base image plus Debian's
 * Go toolchain from this machine (`golang-go`, which .ci/run installs), the C library its `go` and `compile` binaries link against, and the CA certificates the
 * written Dockerfiles copy into their runtime images. Returns null when no Go toolchain can be had.
 */
export async function buildLocalGoImage(): Promise<string | null> {
  const stamp = await docker(["image", "inspect", "--format", "{{json .Config.Env}}", LOCAL_GO_IMAGE]).then(
    ({ stdout }) => (JSON.parse(stdout) as string[]).some((entry) => entry === `REPOSITE_TEST_IMAGE=${RECIPE}`),
    () => false,
  );
  if (stamp) return LOCAL_GO_IMAGE;
  // Installed by .ci/run (tests never install packages themselves).
  if (!(await exists(`/${GO_ROOT}/bin/go`))) return null;
  const { busybox } = await buildLocalBaseImages();
  const work = await mkdtemp(join(tmpdir(), "reposite-go-image-"));
  try {
    // -h follows Debian's links (src → /usr/share/go-1.19/src, ld-linux → the real file).
    const parts = [`${GO_ROOT}/VERSION`, `${GO_ROOT}/bin`, `${GO_ROOT}/pkg/tool`, `${GO_ROOT}/pkg/include`, `${GO_ROOT}/pkg/linux_amd64`, `${GO_ROOT}/src`, "lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2", "etc/ssl/certs/ca-certificates.crt"];
    await run("tar", ["-chf", join(work, "go.tar"), "--exclude=testdata", "-C", "/", ...parts]);
    await writeFile(
      join(work, "Dockerfile"),
      [`FROM ${busybox}`, "ADD go.tar /", `ENV PATH=/${GO_ROOT}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`, `ENV REPOSITE_TEST_IMAGE=${RECIPE}`, ""].join("\n"),
    );
    await docker(["build", "--quiet", "--tag", LOCAL_GO_IMAGE, work], { timeoutMs: 300_000 });
    return LOCAL_GO_IMAGE;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => (error ? reject(new Error(`${command} failed: ${stderr || error.message}`)) : resolve()));
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
