import { access } from "node:fs/promises";
import { imageStamp } from "./docker.js";
import { imageFromHostFiles } from "./host-files-image.js";

/** The Go toolchain image tests build Go apps with (no registry is reachable for `golang:`). */
export const LOCAL_GO_IMAGE = "reposite-test/go:local";

/** Debian's Go toolchain (`apt-get install golang-go`) and what it needs to run. */
const GO_ROOT = "usr/lib/go-1.19";
const RECIPE = "go-1.19-1";

/**
 * Makes `reposite-test/go:local` unless this machine has it: the busybox base image plus Debian's
 * Go toolchain from this machine (`golang-go`, which .ci/run installs), the C library its `go` and
 * `compile` binaries link against, and the CA certificates the written Dockerfiles copy into their
 * runtime images. Returns null when no Go toolchain can be had.
 */
export async function buildLocalGoImage(): Promise<string | null> {
  if ((await imageStamp(LOCAL_GO_IMAGE)) === RECIPE) return LOCAL_GO_IMAGE;
  // Installed by .ci/run (tests never install packages themselves).
  if (!(await access(`/${GO_ROOT}/bin/go`).then(() => true, () => false))) return null;
  return imageFromHostFiles({
    tag: LOCAL_GO_IMAGE,
    stamp: RECIPE,
    // Debian's links are followed (src → /usr/share/go-1.19/src, ld-linux → the real file).
    paths: [`${GO_ROOT}/VERSION`, `${GO_ROOT}/bin`, `${GO_ROOT}/pkg/tool`, `${GO_ROOT}/pkg/include`, `${GO_ROOT}/pkg/linux_amd64`, `${GO_ROOT}/src`, "lib/x86_64-linux-gnu/libc.so.6", "lib64/ld-linux-x86-64.so.2", "etc/ssl/certs/ca-certificates.crt"],
    exclude: ["testdata"],
    steps: [`ENV PATH=/${GO_ROOT}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`],
  });
}
