import type { DeploymentView } from "@reposite/core";
import { dockerForTests, LOCAL_BASE_IMAGES } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEngineHarness, type EngineHarness } from "./engine-harness.js";

const engine = await dockerForTests();
const NPMRC = "fetch-retries=0\n";

/**
 * Builds on the Docker Engine that need a registry: nothing reaches one from a build on these
 * machines (npm's address answers with a certificate Node does not trust; other names do not
 * resolve), which makes the failures real. Each case is its own account, all at once. The
 * repositories' .npmrc sets `fetch-retries=0`, so npm gives up in seconds rather than a minute.
 */
describe.skipIf(!engine.available)("diagnoses of builds that could not reach a registry, on the Engine", () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await startEngineHarness({
      hosting: { buildConcurrency: 8 },
      // Automatic builds start from the local node image (base image settings, as REPOSITE_BASE_IMAGE_NODE gives them).
      config: { baseImages: { node: LOCAL_BASE_IMAGES.node, static: LOCAL_BASE_IMAGES.node } },
    });
  }, 120_000);
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
