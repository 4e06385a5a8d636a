import { RepositeError } from "../../errors.js";
import { diagnoseBuildFailure, type BuildFailureFacts } from "./build-failure.js";
import type { Diagnosis } from "./diagnosis.js";
import { hideHostPaths } from "./host-paths.js";
import { noCommandAtAll, diagnoseStartFailure, type StartContext } from "./start-failure.js";
import type { StartFacts } from "./start-facts.js";

/** Where a run was when it failed. */
export type RunStage = "queue" | "source" | "build" | "start";

/** Everything the pipeline knows of a failed run. */
export interface RunFailureFacts extends StartContext {
  stage: RunStage;
  /** The run's reason as it shows it (masked). */
  reason: string;
  /** Cancelled through its job, or cut by the server stopping. */
  stopped: "cancelled" | "server_stopped" | null;
  /** The build's failure, when the build failed. */
  build: Omit<BuildFailureFacts, "dockerfile"> | null;
  /** What was seen of the new container, when it did not come up. */
  start: StartFacts | null;
  /** The error as thrown. */
  error: unknown;
}

/** Docker's answer for an image with neither CMD nor ENTRYPOINT. */
const NO_COMMAND = /no command specified/i;
/** The engine's answer when a volume is mounted on a file of the image (`volume_path` `/app/server.js`). */
// runc at start ("mount a directory onto a file"), or the engine when it makes the container
// ("source …/merged/app/server.js is not directory", Docker 20.10).
const VOLUME_ON_FILE = /mount a directory onto a file|mounting .* to rootfs .*not a directory|source \S+ is not (?:a )?directory/is;

/**
 * The diagnosis of a failed run, from what the pipeline knew where it failed. Not masked: the
 * caller masks it with the run's env values (`maskDiagnosis`).
 */
export function diagnoseRun(facts: RunFailureFacts): Diagnosis {
  if (facts.stopped === "cancelled") {
    return other("The deploy was cancelled", "It was cancelled before it finished; the app was not changed (what ran before keeps running).", "Deploy again when you are ready.");
  }
  if (facts.stopped === "server_stopped") return serverStoppedDiagnosis();
  if (facts.build) return diagnoseBuildFailure({ ...facts.build, dockerfile: facts.dockerfile });
  if (facts.start) return diagnoseStartFailure(facts.start, facts);
  const message = facts.error instanceof Error ? facts.error.message : String(facts.error);
  if (facts.stage === "start" && NO_COMMAND.test(message)) return noCommandAtAll(facts);
  if (facts.stage === "start" && VOLUME_ON_FILE.test(message)) {
    return other(
      "The data volume's path is a file in the image",
      "The app's data volume (volume_path in the setup) names a file the image already has, and a volume can only be mounted on a folder, so the container could not start.",
      "Set volume_path to a folder of the app's own, such as /data (PUT …/deployment), then deploy again.",
    );
  }
  if (facts.stage === "source" && RepositeError.isInstance(facts.error) && facts.error.status < 500) {
    return {
      kind: "source_problem",
      title: "Reposite could not get what to build",
      detail: facts.reason,
      fix: "Correct what the message names (the repository, its ref, the Dockerfile's path or the build mode in the setup), then deploy again.",
    };
  }
  if (facts.stage === "start") {
    return other(
      "The app's container could not be started",
      `The container runtime refused to start the app's container: ${facts.reason}`,
      "Deploy again. If it fails the same way, the server's container runtime needs its operator's attention.",
    );
  }
  return other("The deploy could not finish", facts.reason, "Deploy again. If it fails the same way, the server's operator needs to look at it.");
}

/** A run the server's stop cut short (ended here as it stops, or found under way at the next start). */
export function serverStoppedDiagnosis(): Diagnosis {
  return other(
    "The server stopped during the deploy",
    "Reposite's server stopped (a restart or an update) while this deploy was under way, so it did not finish; the app was not changed.",
    "Deploy again.",
  );
}

function other(title: string, detail: string, fix: string): Diagnosis {
  return { kind: "other", title, detail, fix };
}

/** The diagnosis with the run's env values, and the server's own paths (`hideHostPaths`), hidden in every text it carries. */
export function maskDiagnosis(diagnosis: Diagnosis, maskValues: (text: string) => string): Diagnosis {
  const mask = (text: string) => hideHostPaths(maskValues(text));
  const { evidence } = diagnosis;
  return {
    ...diagnosis,
    title: mask(diagnosis.title),
    detail: mask(diagnosis.detail),
    fix: mask(diagnosis.fix),
    ...(evidence
      ? {
          evidence: {
            ...evidence,
            ...(evidence.step !== undefined ? { step: mask(evidence.step) } : {}),
            ...(evidence.start_command ? { start_command: evidence.start_command.map(mask) } : {}),
          },
        }
      : {}),
  };
}
