import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLocalBaseImages, dockerForTests } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const engine = await dockerForTests();

// As operators run it: the built bin in its own process, against the real Docker Engine.
const BIN = join(import.meta.dirname, "../../bin/reposite.mjs");
const DIST = join(import.meta.dirname, "../../dist/index.js");

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!engine.available)("reposite admin images", () => {
  let dataDir: string;
  let images: Awaited<ReturnType<typeof buildLocalBaseImages>>;
  beforeAll(async () => {
    if (!existsSync(DIST)) throw new Error("packages/server/dist is missing: run `npm run build` (npm test does it first).");
    images = await buildLocalBaseImages();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-images-"));
  }, 120_000);
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("lists every image builds start from, as the settings name them, and which of them the engine lacks", async () => {
    const { code, stdout, stderr } = await run(["admin", "images"], {
      REPOSITE_DATA_DIR: dataDir,
      REPOSITE_BASE_IMAGE_NODE: images.node,
      REPOSITE_BASE_IMAGE_STATIC: images.node,
      REPOSITE_BASE_IMAGE_PYTHON: "reposite-test/absent-python:never",
      REPOSITE_BASE_IMAGE_RUST: "reposite-test/absent-rust:never",
      REPOSITE_BARE_IMAGES: `alpine:3.20=${images.busybox}`,
    });
    expect(code).toBe(0);
    const rows = stdout.trimEnd().split("\n").map((line) => line.split("\t"));
    const row = (image: string) => rows.find(([name]) => name === image);
    // One row per image, every use named with its setting.
    expect(row(images.node)).toEqual([images.node, "present", "node (REPOSITE_BASE_IMAGE_NODE), static (REPOSITE_BASE_IMAGE_STATIC)"]);
    expect(row(images.busybox)).toEqual([images.busybox, "present", "bare box alpine:3.20 (REPOSITE_BARE_IMAGES)"]);
    expect(row("reposite-test/absent-python:never")).toEqual(["reposite-test/absent-python:never", "missing", "python (REPOSITE_BASE_IMAGE_PYTHON)"]);
    expect(row("reposite-test/absent-rust:never")?.slice(1)).toEqual(["missing", "rust (REPOSITE_BASE_IMAGE_RUST)"]);
    // Defaults the settings leave alone are listed too (this engine has none of them).
    expect(row("golang:1.23-bookworm")).toEqual(["golang:1.23-bookworm", "missing", "go (REPOSITE_BASE_IMAGE_GO)"]);
    expect(rows.filter(([, state]) => state !== "present" && state !== "missing")).toEqual([]);
    const missing = rows.filter(([, state]) => state === "missing").length;
    expect(stderr).toContain(`${missing} of ${rows.length} images are missing`);
    expect(stderr).toContain("docker load");
  }, 60_000);

  it("says so when no Docker Engine answers (exit 1)", async () => {
    const { code, stderr } = await run(["admin", "images"], { REPOSITE_DATA_DIR: dataDir, DOCKER_HOST: "unix:///nonexistent/docker.sock" });
    expect(code).toBe(1);
    expect(stderr).toContain("reposite: no Docker Engine answered at unix:///nonexistent/docker.sock");
  });
});
