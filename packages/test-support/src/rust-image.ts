import { access, readdir } from "node:fs/promises";
import { imageStamp } from "./docker.js";
import { imageFromHostFiles } from "./host-files-image.js";

/**
 * A Rust image for tests (no registry is reachable for `rust:`): cargo, rustc and the standard
 * library of this machine's rustup toolchain. It has no C linker, so it resolves and fetches
 * dependencies and compiles, but cannot link a binary: enough for what cargo does before linking
 * (the registry diagnoses), not for deploying a Rust app.
 */
export const LOCAL_RUST_IMAGE = "reposite-test/rust:local";

const RECIPE = "rust-1";
const TOOLCHAINS = "root/.rustup/toolchains";
/** The C libraries cargo, rustc and LLVM link against (`ldd`). */
const LIBRARIES = ["libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libgcc_s.so.1", "libz.so.1"].map((name) => `lib/x86_64-linux-gnu/${name}`);

/**
 * Makes `reposite-test/rust:local` unless this machine has it: the busybox base image plus rustup's
 * stable toolchain from this machine (`cargo` and `rustc` on the PATH, in `/usr/local/rust`), and the
 * CA certificates. Returns null when this machine has no stable toolchain.
 */
export async function buildLocalRustImage(): Promise<string | null> {
  if ((await imageStamp(LOCAL_RUST_IMAGE)) === RECIPE) return LOCAL_RUST_IMAGE;
  const toolchain = (await readdir(`/${TOOLCHAINS}`).catch(() => [] as string[])).find((name) => name.startsWith("stable-x86_64-unknown-linux-gnu"));
  if (!toolchain || !(await access(`/${TOOLCHAINS}/${toolchain}/bin/cargo`).then(() => true, () => false))) return null;
  const root = `${TOOLCHAINS}/${toolchain}`;
  return imageFromHostFiles({
    tag: LOCAL_RUST_IMAGE,
    stamp: RECIPE,
    // librustc_driver and LLVM (rustc's), the target's standard library; no docs, sources or extra tools.
    paths: [`${root}/bin/cargo`, `${root}/bin/rustc`, `${root}/lib`, "lib64/ld-linux-x86-64.so.2", "etc/ssl/certs/ca-certificates.crt", ...LIBRARIES],
    exclude: [`${root}/lib/rustlib/src`, `${root}/lib/rustlib/etc`, `${root}/lib/rustlib/components`, `${root}/lib/rustlib/manifest-*`],
    steps: [
      // Out of /root (the build's user may not enter it), where `rust:` images keep cargo's home.
      `RUN mkdir -p /usr/local && mv /${root} /usr/local/rust && rm -rf /root/.rustup && mkdir -p /usr/local/cargo`,
      "ENV CARGO_HOME=/usr/local/cargo PATH=/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    ],
  });
}
