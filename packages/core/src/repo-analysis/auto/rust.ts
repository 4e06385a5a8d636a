import { parse as parseToml } from "smol-toml";
import type { SourceTree } from "../source-tree.js";
import { DockerfileWriter } from "./dockerfile-writer.js";
import { bindsLoopback, fixedListenPort } from "./listen-port.js";
import type { Detector } from "./types.js";

interface CargoToml {
  package?: { name?: string; "default-run"?: string };
  bin?: Array<{ name?: string; path?: string }>;
  workspace?: { members?: string[] };
}

/**
 * Rust (`Cargo.toml`, as Railpack): `cargo build --release` (`--locked` with a Cargo.lock) on the
 * `rust` image, the binary run on `runtime` with the repository's files as its working directory
 * (templates, static files, configuration it opens by relative path). The binary is the package's
 * `default-run`, else its one `[[bin]]`, else the package itself when it has `src/main.rs`.
 */
export const rustDetector: Detector = {
  family: "rust",
  detect({ tree, images }) {
    const text = tree.read("Cargo.toml");
    if (text === null) return null;
    let cargo: CargoToml;
    try {
      cargo = parseToml(text) as CargoToml;
    } catch (error) {
      return { reason: `Cargo.toml cannot be read (${error instanceof Error ? error.message.split("\n")[0] : String(error)}). Fix it, or add a Dockerfile.` };
    }
    const binary = binaryName(tree, cargo);
    if (!binary) {
      return {
        reason: cargo.workspace
          ? "This Cargo workspace has no binary at its root; Reposite cannot tell which member to run. Set root_dir to the member's folder, or add a Dockerfile."
          : "This Rust package has no binary (no src/main.rs or [[bin]]), so there is nothing to run. Add a Dockerfile.",
      };
    }
    const locked = tree.has("Cargo.lock");
    const build = `cargo build --release${locked ? " --locked" : ""} --bin ${binary}`;
    const sources = tree.paths().filter((path) => path.endsWith(".rs")).slice(0, 200).map((path) => tree.read(path) ?? "");
    const port = fixedListenPort(sources, /env::var\(\s*"PORT"\s*\)|var_os\(\s*"PORT"\s*\)|env\s*=\s*"PORT"/) ?? 3000;
    const warnings: string[] = [];
    if (port !== 3000) warnings.push(`The program listens on port ${port} and does not read PORT: set the setup's port to ${port}.`);
    if (bindsLoopback(sources)) warnings.push("The program listens on 127.0.0.1 only, which a container does not expose: bind 0.0.0.0 and the port in PORT.");
    const start = `/usr/local/bin/${binary}`;

    const dockerfile = new DockerfileWriter();
    for (const warning of warnings) dockerfile.comment(`Warning: ${warning}`);
    dockerfile
      .from(images.rust, "build")
      .workdir("/src")
      .copy(".", ".")
      .run(build)
      .from(images.runtime)
      .copy("/etc/ssl/certs/ca-certificates.crt", "/etc/ssl/certs/ca-certificates.crt", { from: "build" })
      .workdir("/app")
      .copy(".", "./")
      .copy(`/src/target/release/${binary}`, start, { from: "build" })
      .env({ PORT: "3000" })
      .user("10001:10001")
      .expose(port)
      .cmd([start]);
    return { name: "Rust", install: null, build, start, dockerfile: dockerfile.toString(), warnings };
  },
};

function binaryName(tree: SourceTree, cargo: CargoToml): string | null {
  const bins = (cargo.bin ?? []).map((bin) => bin.name).filter((name): name is string => Boolean(name));
  if (cargo.package?.["default-run"]) return cargo.package["default-run"];
  if (bins.length === 1) return bins[0]!;
  if (cargo.package?.name && tree.has("src/main.rs")) return cargo.package.name;
  if (bins.length > 1) return bins[0]!;
  const extra = tree.paths().map((path) => /^src\/bin\/([\w-]+)(?:\.rs|\/main\.rs)$/.exec(path)?.[1]).find(Boolean);
  return extra ?? null;
}
