import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { BuildFailure, LABEL_RUN, type BuildRequest, type BuiltImage } from "@reposite/core";
import type Docker from "dockerode";
import { pack } from "tar-stream";
import { appendLabels, withLabelInstruction } from "./build-labels.js";
import { BuildLeftovers } from "./build-leftovers.js";
import { BuildLogLines } from "./build-log-lines.js";

/** One JSON message of the Engine's `/build` stream. */
interface BuildEvent {
  stream?: string;
  status?: string;
  id?: string;
  progressDetail?: { current?: number };
  aux?: { ID?: string };
  error?: string;
  errorDetail?: { code?: number; message?: string };
}

const MiB = 1024 * 1024;

/** The exit code of a step the kernel's OOM killer ended (SIGKILL, 128 + 9). */
const OOM_EXIT_CODE = 137;

/**
 * Builds with the Engine's classic builder (`version=1`: it honours `memory` and `memswap`, which
 * BuildKit's `/build` ignores). `memswap` equal to `memory` gives the build no swap, so a step
 * that outgrows the limit is killed (exit code 137) instead of thrashing the server. On timeout
 * or abort the request is torn down: the Engine sees the client leave, kills the running step's
 * container and removes it. The labels go as one `LABEL` line at the end of the Dockerfile (one
 * step instead of one per label), and all but the run's after each `FROM`, so every image and
 * container the build makes is the app's; when the Dockerfile is not a file of the context (a
 * link), a second build from the image adds them. Whatever the build made but the image it
 * answers stands on is removed when it ends, failed and stopped builds included (build-leftovers.ts).
 */
export async function buildImage(docker: Docker, request: BuildRequest): Promise<BuiltImage> {
  const source = toNodeStream(request.context);
  if (request.signal?.aborted) {
    source.destroy();
    throw new BuildFailure("The build was cancelled.", "cancelled");
  }
  // Every stage is labelled too, without the run (which would miss the cache at each build).
  const stageLabels = Object.fromEntries(Object.entries(request.labels).filter(([key]) => key !== LABEL_RUN));
  const leftovers = Object.keys(stageLabels).length > 0 ? new BuildLeftovers(docker, stageLabels) : null;
  let built: BuiltImage;
  try {
    built = await build(docker, request, source, stageLabels, leftovers);
  } catch (error) {
    await leftovers?.removeAfterStop().catch(() => undefined);
    throw error;
  }
  await leftovers?.remove(built.id).catch(() => undefined);
  return built;
}

async function build(
  docker: Docker,
  request: BuildRequest,
  source: Readable,
  stageLabels: Record<string, string>,
  leftovers: BuildLeftovers | null,
): Promise<BuiltImage> {
  const hasLabels = Object.keys(request.labels).length > 0;
  const labelled = hasLabels ? withLabelInstruction(source, request.dockerfile, request.labels, stageLabels) : null;
  const context = labelled?.context ?? source;
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
  const stoppedFailure = () =>
    stopped === "timeout"
      ? new BuildFailure(`The build took longer than its limit of ${Math.round(request.timeoutMs / 1000)} s and was stopped.`, "timeout")
      : new BuildFailure("The build was cancelled.", "cancelled");

  const lines = new BuildLogLines(request.onLog);
  let imageId: string | null = null;
  let failure: BuildEvent | null = null;
  try {
    const bytes = request.memoryMb * MiB;
    const output = (await docker.buildImage(context, {
      t: request.tag,
      dockerfile: request.dockerfile,
      labels: labelled ? {} : request.labels,
      buildargs: request.buildArgs ?? {},
      memory: bytes,
      memswap: bytes,
      rm: true,
      forcerm: true,
      version: "1",
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
          if (event.stream) {
            lines.push(event.stream);
            leftovers?.read(event.stream);
          }
          else if (event.status && !event.progressDetail?.current) lines.push(`${event.id ? `${event.id}: ` : ""}${event.status}\n`);
          if (event.aux?.ID) imageId = event.aux.ID;
          if (event.error || event.errorDetail) failure = event;
        },
      );
    });
    lines.end();
  } catch (error) {
    lines.end();
    context.destroy();
    source.destroy();
    if (stopped) throw stoppedFailure();
    throw new BuildFailure(engineMessage(error), "failed");
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", cancel);
  }
  if (stopped) throw stoppedFailure();
  if (failure) throw classify(failure);
  if (!imageId) imageId = ((await docker.getImage(request.tag).inspect().catch(() => null)) as { Id?: string } | null)?.Id ?? null;
  if (!imageId) throw new BuildFailure("The build ended without an image.", "failed");
  if (labelled && !labelled.labelled()) return { id: await addLabels(docker, request) };
  return { id: imageId };
}

/** A build of `FROM <tag>` with the labels, tagged the same: for a Dockerfile the first build could not add them to. */
async function addLabels(docker: Docker, request: BuildRequest): Promise<string> {
  const packer = pack();
  packer.entry({ name: "Dockerfile", mode: 0o644 }, appendLabels(`FROM ${request.tag}\n`, request.labels));
  packer.finalize();
  const output = await docker.buildImage(Readable.from(packer, { objectMode: false }), { t: request.tag, dockerfile: "Dockerfile", rm: true, forcerm: true, version: "1" });
  let imageId: string | null = null;
  let failure: BuildEvent | null = null;
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(
      output,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: BuildEvent) => {
        if (event.aux?.ID) imageId = event.aux.ID;
        if (event.error || event.errorDetail) failure = event;
      },
    ),
  ).catch((error: unknown) => {
    throw new BuildFailure(engineMessage(error), "failed");
  });
  if (failure) throw classify(failure);
  if (!imageId) throw new BuildFailure("Labelling the image ended without an image.", "failed");
  return imageId;
}

function classify(event: BuildEvent): BuildFailure {
  const message = event.errorDetail?.message ?? event.error ?? "The build failed.";
  const exitCode = event.errorDetail?.code ?? Number(/returned a non-zero code: (\d+)/.exec(message)?.[1] ?? NaN);
  if (exitCode === OOM_EXIT_CODE) {
    return new BuildFailure(`${message} (the step ran out of memory: it was killed at the build's memory limit)`, "out_of_memory", exitCode);
  }
  return new BuildFailure(message, "failed", Number.isNaN(exitCode) ? undefined : exitCode);
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
