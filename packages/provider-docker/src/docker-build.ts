import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { BuildFailure, LABEL_RUN, stageStepLine, type BuildRequest, type BuiltImage, type FailedBuildStep } from "@reposite/core";
import type Docker from "dockerode";
import type { BuildCache } from "./build-cache.js";
import type { BuildMemoryLimit } from "./build-memory-limit.js";
import { BuildkitProgress } from "./buildkit-progress.js";
import { decodeBuildkitStatus } from "./buildkit-status.js";
import { withDockerfile } from "./dockerfile-in-context.js";
import { ignoreSyntaxDirective } from "./syntax-directive.js";

/** One JSON message of the Engine's `/build` stream with BuildKit. */
interface BuildEvent {
  id?: string;
  aux?: string | { ID?: string };
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** What a build needs of the runtime beyond the Engine. */
export interface BuildHelpers {
  /** Holds each step to the build's memory; null when it cannot (then a line in the log says so). */
  memory: BuildMemoryLimit | { reason: string };
  cache: BuildCache;
}

/** The steps BuildKit shows while it loads a `/build` request's context, before the Dockerfile's own. */
const CONTEXT_VERTEX = /^(\[internal\] load remote build context|copy \/context \/)$/;

/** The exit code of a step the kernel's OOM killer ended (SIGKILL, 128 + 9). */
const OOM_EXIT_CODE = 137;

/**
 * Builds with BuildKit through the Engine API (`POST /build?version=2`, the context as the tar
 * body): `RUN --mount`, `FROM --platform=$BUILDPLATFORM` and the rest of today's Dockerfiles work.
 * The progress arrives as BuildKit's trace, decoded into readable lines (buildkit-progress.ts);
 * a failure carries its step, that step's Dockerfile line and its last output. A `# syntax=` line
 * is turned into a comment so the Engine's own frontend builds (no registry is needed). The labels
 * go on the image's config (BuildKit adds them without a step); BuildKit makes no intermediate
 * images, and the cache records it keeps are noted per app (build-cache.ts). Memory is held per
 * step by build-memory-limit.ts (BuildKit ignores the `memory` option). On timeout or cancel the
 * request is torn down, and BuildKit stops the running step.
 */
export async function buildImage(docker: Docker, request: BuildRequest, helpers: BuildHelpers): Promise<BuiltImage> {
  const source = toNodeStream(request.context);
  if (request.signal?.aborted) {
    source.destroy();
    throw new BuildFailure("The build was cancelled.", "cancelled");
  }
  let ignored: string | null = null;
  const read = withDockerfile(source, request.dockerfile, (text) => {
    const result = ignoreSyntaxDirective(text);
    ignored = result.image;
    return result.text;
  });
  const stop = new AbortController();
  let stopped: "timeout" | "cancelled" | null = null;
  const cancel = () => {
    stopped ??= "cancelled";
    stop.abort();
  };
  const timer = setTimeout(() => {
    stopped ??= "timeout";
    stop.abort();
  }, request.timeoutMs);
  request.signal?.addEventListener("abort", cancel, { once: true });

  const progress = new BuildkitProgress(request.onLog);
  const memory = helpers.memory;
  const release = "hold" in memory ? await memory.hold(request.memoryMb) : null;
  if ("reason" in memory) request.onLog(`Build memory is not limited here: ${memory.reason}.`);
  const since = Date.now();
  // When the build went past loading its context: its context records are made by then.
  let contextLoaded = Number.NaN;
  let imageId: string | null = null;
  let failure: string | null = null;
  let announced = false;
  try {
    const output = (await docker.buildImage(read.context, {
      t: request.tag,
      dockerfile: request.dockerfile,
      labels: request.labels,
      buildargs: request.buildArgs ?? {},
      // A number, not "2": dockerode opens a gRPC session for `version: "2"`, which nothing here needs.
      version: 2 as unknown as "2",
      abortSignal: stop.signal,
    })) as NodeJS.ReadableStream & { destroy(): void };
    const tearDown = () => output.destroy();
    stop.signal.addEventListener("abort", tearDown, { once: true });
    if (stop.signal.aborted) tearDown();
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        output,
        (error: Error | null) => (error ? reject(error) : resolve()),
        (event: BuildEvent) => {
          // Said once the context reached the Engine, where the Dockerfile was read.
          if (!announced && ignored) {
            announced = true;
            request.onLog(`Ignoring "# syntax=${ignored}": the Engine's built-in Dockerfile frontend builds it (no registry is needed).`);
          }
          if (event.id === "moby.buildkit.trace" && typeof event.aux === "string") {
            const status = decodeBuildkitStatus(event.aux);
            if (Number.isNaN(contextLoaded) && status.vertexes.some((vertex) => vertex.name && !CONTEXT_VERTEX.test(vertex.name))) contextLoaded = Date.now();
            progress.push(status);
          }
          else if (event.id === "moby.image.id" && typeof event.aux === "object") imageId = event.aux.ID ?? null;
          if (event.error || event.errorDetail) failure = event.errorDetail?.message ?? event.error ?? "The build failed.";
        },
      );
    });
    progress.end();
  } catch (error) {
    progress.end();
    read.context.destroy();
    source.destroy();
    if (stopped) throw stoppedFailure(request, stopped, failedStep(progress, read.dockerfile()));
    throw new BuildFailure(engineMessage(error), "failed");
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", cancel);
    release?.();
    const cacheLabels = Object.fromEntries(Object.entries(request.labels).filter(([key]) => key !== LABEL_RUN));
    // Not awaited: the image is ready; removing the app's cache waits for this bookkeeping.
    const until = Date.now();
    void helpers.cache.afterBuild(cacheLabels, since, until, Number.isNaN(contextLoaded) ? until : contextLoaded).catch(() => undefined);
  }
  if (stopped) throw stoppedFailure(request, stopped, failedStep(progress, read.dockerfile()));
  if (failure) throw classify(failure, failedStep(progress, read.dockerfile()));
  if (!imageId) imageId = ((await docker.getImage(request.tag).inspect().catch(() => null)) as { Id?: string } | null)?.Id ?? null;
  if (!imageId) throw new BuildFailure("The build ended without an image.", "failed");
  return { id: imageId };
}

function stoppedFailure(request: BuildRequest, stopped: "timeout" | "cancelled", step: FailedBuildStep | undefined): BuildFailure {
  return stopped === "timeout"
    ? new BuildFailure(`The build took longer than its limit of ${Math.round(request.timeoutMs / 1000)} s and was stopped.`, "timeout", undefined, step)
    : new BuildFailure("The build was cancelled.", "cancelled");
}

/** The failed step with its Dockerfile line, from what the progress saw. */
function failedStep(progress: BuildkitProgress, dockerfile: string | null): FailedBuildStep | undefined {
  const step = progress.failedStep() ?? progress.runningStep();
  if (!step) return undefined;
  const { error: _error, ...rest } = step;
  const line = dockerfile !== null && step.number > 0 ? stageStepLine(dockerfile, step.stage, step.number) : null;
  return { ...rest, dockerfileLine: line };
}

/** `executor failed running [/bin/sh -c …]: exit code: 137` (Docker 20.10); newer Engines say `… did not complete successfully: exit code: 137`. */
function classify(message: string, step: FailedBuildStep | undefined): BuildFailure {
  const exitCode = Number(/exit code: (\d+)/.exec(message)?.[1] ?? /returned a non-zero code: (\d+)/.exec(message)?.[1] ?? NaN);
  if (exitCode === OOM_EXIT_CODE) {
    return new BuildFailure(`${message} (the step ran out of memory: it was killed at the build's memory limit)`, "out_of_memory", exitCode, step);
  }
  return new BuildFailure(message, "failed", Number.isNaN(exitCode) ? undefined : exitCode, step);
}

/** The Engine's own words from a dockerode error (`(HTTP code 500) server error - <message>`). */
export function engineMessage(error: unknown): string {
  const json = (error as { json?: { message?: string } } | null)?.json;
  if (json?.message) return json.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\(HTTP code \d+\) [^-]*- /, "").trim();
}

function toNodeStream(context: BuildRequest["context"]): Readable {
  if (context instanceof Readable) return context;
  if (typeof (context as ReadableStream).getReader === "function") return Readable.fromWeb(context as WebReadableStream<Uint8Array>);
  return Readable.from(context as NodeJS.ReadableStream);
}
