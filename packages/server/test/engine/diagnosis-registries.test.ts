import { cp, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { DeploymentView } from "@reposite/core";
import { buildLocalBaseImages, buildLocalBunImage, buildLocalGoImage, buildLocalPythonImage, buildLocalRustImage, docker, dockerForTests, LOCAL_BASE_IMAGES } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";

const engine = await dockerForTests();
const NPMRC = "fetch-retries=0\n";

/** The local node image with this machine's Corepack added (what `node:` images ship), for pnpm and Yarn projects. */
const COREPACK_IMAGE = "reposite-test/node-corepack:local";
async function buildCorepackImage(): Promise<string> {
  const { node } = await buildLocalBaseImages();
  const work = await mkdtemp(join(tmpdir(), "reposite-corepack-"));
  try {
    await cp(join(dirname(dirname(await realpath(process.execPath))), "lib/node_modules/corepack"), join(work, "corepack"), { recursive: true });
    const link = "RUN ln -sf ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack";
    await writeFile(join(work, "Dockerfile"), [`FROM ${node}`, "COPY corepack /usr/local/lib/node_modules/corepack", link, ""].join("\n"));
    await docker(["build", "--quiet", "--tag", COREPACK_IMAGE, work], { timeoutMs: 120_000 });
    return COREPACK_IMAGE;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Builds on the Docker Engine that need a registry: nothing reaches one from a build on these
 * machines (npm's address answers with a certificate Node does not trust; other names do not
 * resolve), which makes the failures real. Each case is its own account, all at once. The
 * repositories' .npmrc sets `fetch-retries=0`, so npm gives up in seconds rather than a minute.
 */
describe.skipIf(!engine.available)("diagnoses of builds that could not reach a registry, on the Engine", () => {
  let h: EngineHarness;
  let go: string | null;
  let python: string | null;
  let rust: string | null;
  let bun: string | null;
  beforeAll(async () => {
    // Toolchain images made from this machine's own files, each once per machine (cached by its stamp).
    [go, python, rust, bun] = await Promise.all([buildLocalGoImage(), buildLocalPythonImage(), buildLocalRustImage(), buildLocalBunImage()]);
    const node = await buildCorepackImage();
    h = await startEngineHarness({
      hosting: { buildConcurrency: 8 },
      // Automatic builds start from local images (base image settings, as REPOSITE_BASE_IMAGE_* give them).
      config: {
        baseImages: {
          node,
          static: node,
          runtime: LOCAL_BASE_IMAGES.busybox,
          ...(go ? { go } : {}),
          ...(python ? { python } : {}),
          ...(rust ? { rust } : {}),
          ...(bun ? { bun } : {}),
        },
      },
    });
  }, 600_000);
  afterAll(() => h?.close(), 60_000);

  async function failedRun(name: string, files: Record<string, string>, setup: Record<string, unknown> = {}): Promise<{ read: DeploymentView; text: string }> {
    const owner = await h.account();
    const site = await h.project(owner, name, files);
    const { job, text } = await h.deploy(owner, site, setup);
    expect(job.status).toBe("error");
    return { read: await h.reposite.hosting.read(owner, site), text };
  }

  it.concurrent("npm install in a repository's Dockerfile: registry.npmjs.org out of reach (TLS), with a mirror the Dockerfile can set", async () => {
    const { read } = await failedRun("npm-tls", {
      Dockerfile: [`FROM ${h.images.node}`, h.label, "WORKDIR /app", "COPY package.json .npmrc ./", "RUN npm install", 'CMD ["node", "server.js"]', ""].join("\n"),
      "package.json": JSON.stringify({ name: "npm-tls", dependencies: { "left-pad": "^1.3.0" } }),
      ".npmrc": NPMRC,
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach registry.npmjs.org (TLS)",
      evidence: { dockerfile_line: 5, step: "RUN npm install", registry: "registry.npmjs.org", network_error: "tls" },
    });
    expect(diagnosis.detail).toContain("self-signed certificate in certificate chain");
    expect(diagnosis.fix).toContain("ENV NPM_CONFIG_REGISTRY=");
  });

  it.concurrent("an automatic build of a Node app: the same cause, and a fix in the repository's files (.npmrc), not in a Dockerfile its owner never saw", async () => {
    const { read } = await failedRun(
      "auto-npm",
      {
        "package.json": JSON.stringify({ name: "auto-npm", scripts: { start: "node server.js" }, dependencies: { "left-pad": "^1.3.0" } }),
        "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n",
        ".npmrc": NPMRC,
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "registry_unreachable", evidence: { registry: "registry.npmjs.org", network_error: "tls" } });
    expect(diagnosis.fix).toContain(".npmrc");
    expect(diagnosis.fix).not.toMatch(/line \d+ of|ENV /);
  });

  it.concurrent("an automatic build of a pnpm project: Corepack could not download pnpm from the npm registry (TLS)", async () => {
    const { read } = await failedRun(
      "auto-pnpm",
      {
        "package.json": JSON.stringify({ name: "auto-pnpm", packageManager: "pnpm@9.15.9", scripts: { start: "node server.js" }, dependencies: { "left-pad": "^1.3.0" } }),
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "server.js": "require('node:http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);\n",
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "registry_unreachable", title: "The build could not reach registry.npmjs.org (TLS)", evidence: { registry: "registry.npmjs.org", network_error: "tls" } });
    expect(diagnosis.detail).toContain("Error when performing the request to https://registry.npmjs.org/pnpm");
    expect(diagnosis.fix).toContain("Corepack downloads pnpm itself");
  });

  it.concurrent("an automatic build of a Go module: go mod download could not reach the Go module proxy (DNS); vendoring is the repository's way out", async () => {
    expect(go, "Debian's Go toolchain (golang-1.19-go) for the local Go image").not.toBeNull();
    const { read } = await failedRun(
      "auto-go",
      {
        "go.mod": "module example.com/hello\n\ngo 1.19\n\nrequire github.com/gin-gonic/gin v1.9.1\n",
        "go.sum": "github.com/gin-gonic/gin v1.9.1 h1:4idEAncQnU5cB7BeOkPtxjfCSye0AAm1R0RVIqJ+Jmg=\ngithub.com/gin-gonic/gin v1.9.1/go.mod h1:hPrL7YrpYKXt5YId3A/Tnip5kqbEAP+KLuI3SUcPTeU=\n",
        "main.go": 'package main\n\nimport "github.com/gin-gonic/gin"\n\nfunc main() { gin.Default().Run() }\n',
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach proxy.golang.org (DNS)",
      evidence: { step: expect.stringContaining("go mod download"), registry: "proxy.golang.org", network_error: "dns" },
    });
    expect(diagnosis.detail).toContain("the Go module proxy (proxy.golang.org)");
    expect(diagnosis.fix).toContain("go mod vendor");
  });

  it.concurrent("an automatic build of a Flask app: pip install -r requirements.txt could not reach pypi.org (DNS), with what its owner can do", async () => {
    expect(python, "a CPython with pip under /root/.pyenv/versions for the local Python image").not.toBeNull();
    const { read } = await failedRun(
      "auto-pip",
      {
        "requirements.txt": "flask==3.0.3\n",
        "app.py": 'from flask import Flask\n\napp = Flask(__name__)\n\n@app.get("/")\ndef home():\n    return "ok"\n',
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach pypi.org (DNS)",
      evidence: { step: expect.stringContaining("RUN pip install -r requirements.txt"), registry: "pypi.org", network_error: "dns" },
    });
    expect(diagnosis.detail).toContain("Failed to establish a new connection");
    expect(diagnosis.fix).toContain("pypi.org");
    expect(diagnosis.fix).not.toMatch(/line \d+ of|ENV /);
    // pip tries five times with growing pauses (about 10 s) after the environment is made; no repository file can shorten it.
  }, 60_000);

  it.concurrent("an automatic build of a Rust program with a dependency: cargo could not reach the crates.io index (DNS); vendoring is the repository's way out", async () => {
    expect(rust, "rustup's stable toolchain under /root/.rustup for the local Rust image").not.toBeNull();
    const { read } = await failedRun(
      "auto-cargo",
      {
        "Cargo.toml": '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nitoa = "1"\n',
        "src/main.rs": 'fn main() {\n    println!("{}", itoa::Buffer::new().format(42));\n}\n',
        // Cargo's own setting, so it gives up at the first failure rather than after three tries.
        ".cargo/config.toml": "[net]\nretry = 0\n",
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach index.crates.io (DNS)",
      evidence: { step: expect.stringContaining("cargo build --release"), registry: "index.crates.io", network_error: "dns" },
    });
    expect(diagnosis.detail).toContain("Could not resolve host: index.crates.io");
    expect(diagnosis.fix).toContain("cargo vendor");
  });

  it.concurrent("an automatic build of a Bun app with a dependency: bun install could not reach registry.npmjs.org (TLS)", async () => {
    expect(bun, "Bun's binary (npm pack @oven/bun-linux-x64) for the local Bun image").not.toBeNull();
    const { read } = await failedRun(
      "auto-bun",
      {
        "package.json": JSON.stringify({ name: "auto-bun", packageManager: "bun@1.4.5", module: "index.ts", dependencies: { hono: "^4.6.0" } }),
        "index.ts": 'import { Hono } from "hono";\n\nconst app = new Hono();\napp.get("/", (c) => c.text("ok"));\nexport default { port: Number(process.env.PORT), fetch: app.fetch };\n',
      },
      { build_mode: "auto" },
    );
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach registry.npmjs.org (TLS)",
      evidence: { step: expect.stringContaining("bun install"), registry: "registry.npmjs.org", network_error: "tls" },
    });
    expect(diagnosis.detail).toContain("downloading package manifest hono");
    expect(diagnosis.fix).not.toMatch(/line \d+ of|ENV /);
  });

  it.concurrent("a FROM the engine does not have: the pull could not reach Docker Hub (DNS), not a wrong name", async () => {
    const { read } = await failedRun("from-absent", {
      Dockerfile: ["FROM node:22-reposite-absent AS build", h.label, "RUN echo never", 'CMD ["node"]', ""].join("\n"),
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({
      kind: "registry_unreachable",
      title: "The build could not reach registry-1.docker.io (DNS)",
      evidence: { dockerfile_line: 1, image: "node:22-reposite-absent", registry: "registry-1.docker.io", network_error: "dns" },
    });
    expect(diagnosis.fix).toContain("docker load -i image.tar");
    expect(diagnosis.fix).not.toContain("check its name");
  });

  it.concurrent("a step that prints 5,000 lines and fails after another printed 1,500: found, with its line and last output; the log names it after what it left out", async () => {
    const { read, text } = await failedRun("long-output", {
      Dockerfile: [
        `FROM ${h.images.busybox}`,
        h.label,
        // A word of this run's own, so BuildKit's cache from an earlier run does not skip the step's output.
        `RUN for i in $(seq 1 1500); do echo prepared $i ${h.label.split("=")[1]}; done`,
        'RUN for i in $(seq 1 5000); do echo page $i; done; echo "page 5000 has no title" >&2; exit 4',
        'CMD ["httpd", "-f"]',
        "",
      ].join("\n"),
    });
    const diagnosis = read.last_run!.diagnosis!;
    expect(diagnosis).toMatchObject({ kind: "build_step_failed", evidence: { dockerfile_line: 4, exit_code: 4 } });
    expect(diagnosis.title).toContain("(line 4 of the Dockerfile)");
    expect(diagnosis.detail).toContain("Its last output:\n");
    // Its stdout and stderr come through as BuildKit orders them: the last page and the error are among the last lines quoted.
    expect(diagnosis.detail).toContain("    page 4999\n");
    const lines = text.split("\n");
    const leftOut = lines.findIndex((line) => line.includes("lines left out"));
    expect(leftOut).toBeGreaterThan(0);
    expect(lines[leftOut + 1]).toMatch(/^#\d+ \[3\/3\] RUN for i in \$\(seq 1 5000\)/);
  });
});
