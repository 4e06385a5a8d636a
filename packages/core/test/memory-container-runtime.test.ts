import { Readable } from "node:stream";
import { containerRuntimeContract, createMemoryContainerRuntime, writeTar } from "@reposite/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { BuildFailure } from "../src/index.js";

// The in-memory runtime core's fast hosting tests use is held to the same contract as Docker.
containerRuntimeContract("memory", async () => {
  const baseImages = { node: "memory/node:22", busybox: "memory/busybox:1" };
  const runtime = createMemoryContainerRuntime({ baseImages: Object.values(baseImages) });
  return {
    runtime,
    baseImages,
    labels: { "reposite-test.run": "memory" },
    publishedHostIps: async (id) => ((await runtime.inspectContainer(id))?.running ? ["127.0.0.1"] : []),
    teardown: () => runtime.close(),
  };
});

describe("memory runtime: scripted outcomes for hosting tests", () => {
  const runtime = createMemoryContainerRuntime({
    baseImages: ["memory/node:22"],
    handler: (request, response, container) => {
      if (request.url === "/custom") response.end(`custom ${container.env.PORT}`);
      else response.writeHead(418).end();
    },
  });
  afterAll(() => runtime.close());
  let count = 0;
  const image = async (lines: string[]) =>
    (
      await runtime.buildImage({
        context: Readable.from([writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from(["FROM memory/node:22", ...lines].join("\n")) }])]),
        dockerfile: "Dockerfile",
        tag: `scripted/${count++}`,
        labels: {},
        memoryMb: 128,
        timeoutMs: 5_000,
        onLog: () => undefined,
      })
    ).id;
  const start = async (lines: string[]) =>
    runtime.runContainer({ name: `scripted-${count}`, image: await image(lines), labels: {}, env: {}, port: 3000, memoryMb: 64, cpus: 1, pidsLimit: 32, network: "scripted" });

  it("answers through the handler given", async () => {
    const app = await start([]);
    expect(await (await fetch(`http://127.0.0.1:${app.hostPort}/custom`)).text()).toBe("custom 3000");
    expect((await fetch(`http://127.0.0.1:${app.hostPort}/other`)).status).toBe(418);
  });

  it("refuses connections with `run no-http`, and never answers with `run hang`", async () => {
    const refusing = await start(["# reposite-test: run no-http"]);
    await expect(fetch(`http://127.0.0.1:${refusing.hostPort}/custom`)).rejects.toThrow();
    const hanging = await start(["# reposite-test: run hang"]);
    await expect(fetch(`http://127.0.0.1:${hanging.hostPort}/custom`, { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(await runtime.inspectContainer(hanging.id)).toMatchObject({ running: true });
  });

  it("exits later with `run exit <code> after <ms>`, and when a test says so", async () => {
    const app = await start(["# reposite-test: run exit 2 after 150"]);
    expect(await runtime.inspectContainer(app.id)).toMatchObject({ running: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runtime.inspectContainer(app.id)).toMatchObject({ running: false, exitCode: 2, oomKilled: false });
    const other = await start([]);
    await runtime.exit(other.id, 137, { oomKilled: true });
    expect(await runtime.inspectContainer(other.id)).toMatchObject({ running: false, exitCode: 137, oomKilled: true, hostPort: null });
  });

  it("fails a build on an unknown base image and on an unknown marker", async () => {
    await expect(image([]).then(() => image(["FROM elsewhere/image:1"]))).rejects.toMatchObject({ reason: "failed" });
    await expect(image(["# reposite-test: run fly"])).rejects.toBeInstanceOf(BuildFailure);
  });
});
