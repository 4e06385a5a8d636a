import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { BuildFailure, type BuildRequest } from "@reposite/core";
import { buildLocalBaseImages, docker, dockerForTests, writeTar } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerRuntime, type DockerRuntime } from "../src/index.js";

const engine = await dockerForTests();
const RUN_LABEL = "reposite-test.run";
const run = `buildkit-${randomBytes(4).toString("hex")}`;
/** Named in build commands, so this file's cache records are told from others' by their description. */
const MARKER = `bk-${randomBytes(4).toString("hex")}`;

const tarOf = (files: Record<string, string>) =>
  writeTar(Object.entries(files).map(([path, content]) => ({ path, type: "file" as const, content: Buffer.from(content) })));

interface CacheRecord {
  ID: string;
  Description?: string;
}

// Builds on BuildKit through the Engine API: what today's Dockerfiles use, readable logs, limits, and the cache an app's builds keep.
describe.skipIf(!engine.available)("BuildKit builds on the Engine", () => {
  let base: Awaited<ReturnType<typeof buildLocalBaseImages>>;
  let runtime: DockerRuntime;

  beforeAll(async () => {
    base = await buildLocalBaseImages();
    runtime = createDockerRuntime();
  }, 120_000);
  afterAll(async () => {
    const filter = `label=${RUN_LABEL}=${run}`;
    const containers = (await docker(["ps", "-aq", "--filter", filter])).stdout.split("\n").filter(Boolean);
    if (containers.length) await docker(["rm", "-f", ...containers]);
    const images = (await docker(["images", "-q", "--filter", filter])).stdout.split("\n").filter(Boolean);
    if (images.length) await docker(["rmi", "-f", ...new Set(images)]).catch(() => undefined);
    const networks = (await docker(["network", "ls", "-q", "--filter", filter])).stdout.split("\n").filter(Boolean);
    if (networks.length) await docker(["network", "rm", ...networks]).catch(() => undefined);
    await runtime?.removeBuildCache?.({ [RUN_LABEL]: run });
  });

  const build = (name: string, dockerfile: string, overrides: Partial<BuildRequest> = {}) => {
    const lines: string[] = [];
    const building = runtime.buildImage({
      context: Readable.from([tarOf({ Dockerfile: dockerfile, "index.html": `<h1>${MARKER}</h1>\n` })]),
      dockerfile: "Dockerfile",
      tag: `reposite-test/${run}-${name}:1`,
      labels: { [RUN_LABEL]: run, "dev.reposite.site": `site_${name}`, "dev.reposite.run": `run_${name}` },
      memoryMb: 128,
      timeoutMs: 60_000,
      onLog: (line) => lines.push(line),
      ...overrides,
    });
    return { lines, building };
  };
  const failureOf = async (building: Promise<unknown>) => {
    const error = await building.then(() => null, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(BuildFailure);
    return error as BuildFailure;
  };
  /** `/system/df`, asked again while another client's measurement runs (the Engine runs one at a time). */
  const cacheRecords = async (): Promise<CacheRecord[]> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return ((await runtime.docker.df()) as { BuildCache?: CacheRecord[] | null }).BuildCache ?? [];
      } catch (error) {
        if (attempt > 100 || !/already running/.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  it("builds a Dockerfile with # syntax=, FROM --platform=$BUILDPLATFORM, ARG TARGETPLATFORM, RUN --mount=type=cache and COPY --from; the image serves", async () => {
    const dockerfile = [
      "# syntax=docker/dockerfile:1.7",
      `FROM --platform=\${BUILDPLATFORM} ${base.busybox} AS build`,
      "ARG TARGETPLATFORM",
      "WORKDIR /src",
      "COPY index.html .",
      `RUN --mount=type=cache,target=/cache echo "${MARKER} cached once" >> /cache/runs && cp /cache/runs runs.txt && echo "for $TARGETPLATFORM" > platform.txt`,
      "",
      `FROM ${base.busybox}`,
      "COPY --from=build /src /www",
      'CMD ["httpd", "-f", "-p", "8080", "-h", "/www"]',
      "",
    ].join("\n");
    const { lines, building } = build("modern", dockerfile);
    const image = await building;
    expect(lines).toContain('Ignoring "# syntax=docker/dockerfile:1.7": the Engine\'s built-in Dockerfile frontend builds it (no registry is needed).');
    // Steps as BuildKit names them, each announced once.
    expect(lines).toContainEqual(expect.stringMatching(/^#\d+ \[build 4\/4\] RUN --mount=type=cache,target=\/cache echo/));
    expect(lines).toContainEqual(expect.stringMatching(/^#\d+ \[stage-1 2\/2\] COPY --from=build \/src \/www$/));

    const network = `${run}-modern`;
    const app = await runtime.runContainer({ name: `${run}-modern`, image: image.id, labels: { [RUN_LABEL]: run }, env: {}, port: 8080, memoryMb: 64, cpus: 0.5, pidsLimit: 50, network });
    try {
      const get = async (path: string) => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await (await fetch(`http://127.0.0.1:${app.hostPort}${path}`)).text();
          } catch (error) {
            if (attempt > 50) throw error;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        }
      };
      expect(await get("/index.html")).toContain(MARKER);
      expect(await get("/platform.txt")).toMatch(/^for linux\/(amd64|arm64)/);
      expect(await get("/runs.txt")).toContain(`${MARKER} cached once`);
    } finally {
      await runtime.removeContainer(app.id);
      await runtime.removeNetwork(network);
    }
  });

  it("a failing step in a stage: its name, stage, Dockerfile line and last output, however long its output", async () => {
    const dockerfile = [
      `FROM ${base.busybox} AS build`,
      "# a comment, and a continued line",
      "RUN echo preparing && \\",
      "    echo still preparing",
      `RUN i=0; while [ $i -lt 5000 ]; do echo "${MARKER} line $i"; i=$((i+1)); done; echo "config.yml: no such file" >&2; exit 3`,
      `FROM ${base.busybox}`,
      "COPY --from=build /etc/hostname /x",
      "",
    ].join("\n");
    const { lines, building } = build("fails", dockerfile);
    const failure = await failureOf(building);
    expect(failure).toMatchObject({ reason: "failed", exitCode: 3 });
    expect(failure.step).toMatchObject({ stage: "build", number: 3, of: 3, dockerfileLine: 5, instruction: expect.stringMatching(/^RUN i=0;/) });
    expect(failure.step!.name).toMatch(/^\[build 3\/3\] RUN i=0;/);
    // stdout and stderr reach BuildKit's trace apart (the error may come before the last stdout lines): stderr's last lines are always kept.
    expect(failure.step!.output).toContain("config.yml: no such file");
    expect(failure.step!.output).toContain(`${MARKER} line 4999`);
    expect(failure.step!.output.length).toBeLessThanOrEqual(200);
    expect(lines).toContainEqual(expect.stringMatching(/^#\d+ ERROR: .*exit code: 3$/));
  });

  it("a step that outgrows the build memory is killed: out_of_memory, exit 137, with its Dockerfile line", async () => {
    const dockerfile = [`FROM ${base.busybox}`, `RUN echo ${MARKER} small`, `RUN echo ${MARKER} big && dd if=/dev/zero of=/dev/null bs=300M count=1`, ""].join("\n");
    const failure = await failureOf(build("oom", dockerfile, { memoryMb: 64 }).building);
    expect(failure).toMatchObject({ reason: "out_of_memory", exitCode: 137 });
    expect(failure.step).toMatchObject({ stage: null, number: 3, of: 3, dockerfileLine: 3 });
    // The same step with room to spare succeeds: the limit is the build's, not the machine's.
    await build("oom-room", dockerfile.replace("bs=300M", "bs=16M"), { memoryMb: 64 }).building;
  });

  // That a build's own context record is pruned at once is proved in build-context-pruning.test.ts, which can
  // tell its build's context from those other test files' builds send to the shared Engine meanwhile.
  it("notes the cache records an app's builds make and prunes them with the app", async () => {
    // Records made within a second of another build are noted for both builds (build-cache.ts): start apart from the last test's.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const before = new Set((await cacheRecords()).map((record) => record.ID));
    const dockerfile = [`FROM ${base.busybox}`, `RUN --mount=type=cache,target=/cache echo ${MARKER}-cache > /cache/x && echo ${MARKER}-layer > /layer`, ""].join("\n");
    const image = await build("cached", dockerfile).building;
    const ours = (records: CacheRecord[]) => records.filter((record) => (record.Description ?? "").includes(`${MARKER}-cache`));
    // Wait for the bookkeeping after the build (pruning the context) by asking for another app's removal.
    await runtime.removeBuildCache!({ "dev.reposite.site": "site_nobody" });
    const made = (await cacheRecords()).filter((record) => !before.has(record.ID));
    expect(ours(made).length).toBeGreaterThan(0);

    // As an app's removal does: its images, then its cache (a record the image's layer shares goes once the image has).
    await runtime.removeImage(image.id);
    await runtime.removeBuildCache!({ "dev.reposite.site": "site_cached", [RUN_LABEL]: run });
    expect(ours(await cacheRecords())).toEqual([]);
  });
});
