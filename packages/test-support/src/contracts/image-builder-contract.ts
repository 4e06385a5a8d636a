import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { BuildFailure, type AppImage, type ImageBuilder, type ImageBuildRequest } from "@reposite/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTar } from "../tar.js";

export interface ImageBuilderContractSetup {
  builder: ImageBuilder;
  /** Images the builder has without a build: `node` runs `node`, `busybox` has `sh`, `head` and `tail`. */
  baseImages: { node: string; busybox: string };
  /** Labels unique to this run: every image the contract builds carries them, so `teardown` finds leftovers. */
  labels: Record<string, string>;
  /**
   * What a node that never built the image finds at `reference` (for a registry: the local copy
   * removed, then pulled): the image's labels, or null when it cannot get it.
   */
  fetchAsNode(reference: string): Promise<Record<string, string> | null>;
  /** Whether the image is still kept anywhere the builder put it (the registry, the building engine). */
  stored(image: AppImage): Promise<boolean>;
  teardown(): Promise<void>;
}

/** A build log line without the step number BuildKit's lines start with (`#5 …`). */
const stepOutput = (line: string) => line.replace(/^#\d+ /, "");

/**
 * What hosting needs of an image builder, for any implementation: a tar context built with its
 * log streamed, labelled, and made available where apps run (by digest when there is a registry);
 * failures classified (the step's exit code, out of memory, cancel); removal here and in the
 * registry, a missing image being fine.
 */
export function imageBuilderContract(name: string, setup: () => Promise<ImageBuilderContractSetup>, options: { namePrefix?: string } = {}): void {
  describe(`image builder contract: ${name}`, () => {
    let ctx: ImageBuilderContractSetup | undefined;
    const env = () => {
      if (!ctx) throw new Error("[test-support] [image-builder-contract] setup did not finish");
      return ctx;
    };
    /** Image repositories start with it (`namePrefix`, `ibc` by default). */
    const prefix = `${options.namePrefix ?? "ibc"}-${randomBytes(4).toString("hex")}`;
    let built: AppImage | null = null;
    let log: string[] = [];

    const context = (base: "node" | "busybox", lines: string[]) => {
      const dockerfile = [`FROM ${env().baseImages[base]}`, ...lines, ""].join("\n");
      return writeTar([{ path: "Dockerfile", type: "file", content: Buffer.from(dockerfile) }]);
    };
    const build = (tar: Buffer, overrides: Partial<ImageBuildRequest> = {}) =>
      env().builder.build({
        context: Readable.from([tar]),
        dockerfile: "Dockerfile",
        tag: `${prefix}/app:${randomBytes(3).toString("hex")}`,
        labels: env().labels,
        memoryMb: 256,
        timeoutMs: 60_000,
        onLog: () => undefined,
        ...overrides,
      });
    const buildFailure = async (tar: Buffer, overrides: Partial<ImageBuildRequest> = {}) => {
      const error = await build(tar, overrides).then(
        (image) => {
          void env().builder.remove(image);
          return null;
        },
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(BuildFailure);
      return error as BuildFailure;
    };

    beforeAll(async () => {
      ctx = await setup();
      log = [];
      // The prefix makes the step new to the builder's cache, so its output shows.
      built = await build(context("busybox", [`RUN echo built for the contract ${prefix}`, 'CMD ["sleep", "60"]']), { onLog: (line) => log.push(line) });
    }, 180_000);
    afterAll(async () => {
      await ctx?.teardown();
    }, 120_000);

    it("names itself with its specification version and answers ping", async () => {
      expect(env().builder.specificationVersion).toBe("v1");
      expect(env().builder.provider).toBeTruthy();
      await env().builder.ping();
    });

    it("builds a context with its log streamed and its labels, available where apps run", async () => {
      expect(log.map(stepOutput)).toContain(`built for the contract ${prefix}`);
      const image = built!;
      if (env().builder.capabilities.registry) {
        // Deployed by digest: the reference names exactly these bytes, whatever becomes of the tag.
        expect(image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(image.reference.endsWith(`@${image.digest}`)).toBe(true);
      }
      const labels = await env().fetchAsNode(image.reference);
      expect(labels).toMatchObject(env().labels);
      if (env().builder.capabilities.sizes) expect(await env().builder.imageSize!(image)).toBeGreaterThan(0);
    });

    it("fails a build whose step fails, with the step's exit code and the failing step", async () => {
      const lines: string[] = [];
      const failure = await buildFailure(context("busybox", [`RUN echo before the failure ${prefix}`, "RUN exit 3"]), { onLog: (line) => lines.push(line) });
      expect(failure.reason).toBe("failed");
      expect(failure.exitCode).toBe(3);
      expect(failure.step?.instruction).toContain("exit 3");
      expect(lines.map(stepOutput)).toContain(`before the failure ${prefix}`);
    });

    it("fails a build that outgrows its memory as out_of_memory", async () => {
      const failure = await buildFailure(context("busybox", ["RUN head -c 300m /dev/zero | tail"]), { memoryMb: 64 });
      expect(failure.reason).toBe("out_of_memory");
      expect(failure.exitCode).toBe(137);
    });

    it("stops a build when its signal aborts", async () => {
      // Aborted once the build is at its steps (a line naming the first one is logged), not after a
      // delay that may end before the build starts on a busy machine. The second step would sleep
      // far past this test's time limit: a build the abort did not stop fails the test by timing out.
      const mark = `abort-once-running-${prefix}-${randomBytes(3).toString("hex")}`;
      const controller = new AbortController();
      const failure = await buildFailure(context("busybox", [`RUN echo ${mark}`, "RUN sleep 600"]), {
        signal: controller.signal,
        onLog: (line) => {
          if (line.includes(mark)) controller.abort();
        },
      });
      expect(controller.signal.aborted).toBe(true);
      expect(failure.reason).toBe("cancelled");
    });

    it("removes an image (here and in the registry), and removing a missing one is fine", async () => {
      const image = built!;
      expect(await env().stored(image)).toBe(true);
      await env().builder.remove(image);
      expect(await env().stored(image)).toBe(false);
      await env().builder.remove(image);
    });
  });
}
