import type { BaseImages } from "../../repo-analysis/repo-check.js";
import type { FailedBuildStep } from "../../ports/container-runtime.js";
import { AUTO_REFUSED_FIX, autoStepFix } from "./auto-build-fixes.js";
import { failedStep, stepFromBuilder, type FailedStep } from "./build-step.js";
import type { Diagnosis } from "./diagnosis.js";
import { dockerfileName, type DockerfileFacts } from "./dockerfile-facts.js";
import { registryDiagnosis } from "./registry-diagnosis.js";
import { unreachableRegistry } from "./unreachable-registry.js";
import { dockerfileSteps } from "./dockerfile-steps.js";
import { formatMb, memoryNeeded } from "./size-needed.js";
import { minutes, withOutput } from "./wording.js";

/** What is known of a build that failed. */
export interface BuildFailureFacts {
  reason: "failed" | "out_of_memory" | "timeout";
  exitCode?: number;
  /** The builder's own message (`The command '/bin/sh -c exit 3' returned a non-zero code: 3`). */
  message: string;
  /** The build's log lines so far: the last few hundred, with every step's start kept apart (`BuildLogKeeper`). */
  log: readonly string[];
  /** The failing step as the builder told it (BuildKit), when it did: preferred to reading the log. */
  step?: FailedBuildStep;
  dockerfile: DockerfileFacts | null;
  buildMemoryMb: number;
  buildTimeoutMs: number;
  /** The app's memory limit now (MB). */
  appMemoryMb: number;
  /** The server's base images by name (`node` → `node:22-bookworm-slim`): which setting names a missing one. */
  baseImages?: Partial<BaseImages>;
}

/** Lines of the log read for a failure no step of the Dockerfile owns (a base image's lookup). */
const UNOWNED_LINES = 200;

/** The base image could not be had although its registry answered: its name or tag is wrong. */
const IMAGE_NOT_FOUND = /failed to resolve source metadata for (\S+?):|pull access denied for ([^\s,]+)|manifest for (\S+) not found/i;

/** A failed build explained: which step (its Dockerfile line), what it printed, what to do. */
export function diagnoseBuildFailure(facts: BuildFailureFacts): Diagnosis {
  // A step the builder names is the one; `[internal]` work (a base image's lookup) is no step of the file.
  const step = facts.step ? stepFromBuilder(facts.step, facts.dockerfile?.text ?? null) : failedStep(facts.log, facts.dockerfile?.text ?? null);
  const name = dockerfileName(facts.dockerfile);
  const where = step ? stepPlace(step, name) : `a step of ${name}`;
  const evidence = step ? stepEvidence(step) : {};
  const auto = facts.dockerfile?.origin === "auto";
  if (facts.reason === "failed") {
    const command = step?.instruction?.text ?? step?.text ?? null;
    const registry = unreachableRegistry(step ? step.output : facts.log.slice(-UNOWNED_LINES), facts.message, command);
    if (registry) {
      const exitCode = facts.exitCode;
      return registryDiagnosis(registry, { step, where: step ? where : null, dockerfile: facts.dockerfile, baseImages: facts.baseImages ?? {}, ...(exitCode !== undefined ? { exitCode } : {}) });
    }
  }
  if (facts.reason === "out_of_memory") {
    const needed = memoryNeeded(facts.buildMemoryMb, facts.appMemoryMb);
    return {
      kind: "build_out_of_memory",
      title: "The build ran out of memory",
      detail: withOutput(
        `${capitalize(where)} used more than the ${formatMb(facts.buildMemoryMb)} of memory a build may use and was killed (exit code 137), so no image was made.`,
        "The step's last output:",
        step?.output ?? [],
      ),
      fix:
        `Make that step use less memory (build fewer things at once; for a Node build, for example, NODE_OPTIONS=--max-old-space-size=${Math.floor(facts.buildMemoryMb * 0.75)}), ` +
        `or give the app more memory: ${formatMb(needed)}.`,
      limit: { kind: "memory", needed },
      evidence: { ...evidence, exit_code: 137, peak_memory_mb: facts.buildMemoryMb },
    };
  }
  if (facts.reason === "timeout") {
    return {
      kind: "build_timeout",
      title: "The build took too long",
      detail: withOutput(`The build was stopped after ${minutes(facts.buildTimeoutMs)}, the longest a build may take, during ${where}.`, "The step's last output:", step?.output ?? []),
      fix: "Make that step faster: install only what the app needs, download less, and leave out work the app does not need to run (tests, documentation). Then deploy again.",
      evidence,
    };
  }
  if (!step) {
    const missing = IMAGE_NOT_FOUND.exec(facts.message);
    if (missing) return imageNotFound(missing.slice(1).find(Boolean)!, facts, name);
    const line = /line (\d+)/i.exec(facts.message)?.[1];
    return {
      kind: "source_problem",
      title: `${capitalize(name)} could not be built`,
      detail: `The builder refused ${name} before any step ran: ${facts.message}`,
      fix: auto
        ? AUTO_REFUSED_FIX
        : line
        ? `Correct line ${line} of ${name}, then deploy again.`
        : `Check that ${name} is a valid Dockerfile (it starts with FROM; every line is an instruction such as RUN, COPY or CMD), then deploy again.`,
      ...(line ? { evidence: { dockerfile_line: Number(line) } } : {}),
    };
  }
  const exit = facts.exitCode !== undefined ? ` ended with exit code ${facts.exitCode}` : " failed";
  return {
    kind: "build_step_failed",
    title: `The build failed at step ${step.number} of ${step.of}${step.instruction ? ` (line ${step.instruction.line} of the Dockerfile)` : ""}`,
    detail: withOutput(`${capitalize(where)}${exit}, so no image was made.`, "Its last output:", step.output, `The builder said: ${facts.message}`),
    fix: auto ? autoStepFix(step, facts.message) : stepFix(step, name),
    evidence: { ...evidence, ...(facts.exitCode !== undefined ? { exit_code: facts.exitCode } : {}) },
  };
}

/** `step 3 of 5 (line 4 of the repository's Dockerfile: RUN exit 3)`; BuildKit counts steps per stage (`step 3 of 5 of stage build`). */
function stepPlace(step: FailedStep, name: string): string {
  const line = step.instruction ? `line ${step.instruction.line} of ${name}` : name;
  return `step ${step.number} of ${step.of}${step.stage ? ` of stage ${step.stage}` : ""} (${line}: ${step.instruction?.text ?? step.text})`;
}

/**
 * A base image the builder looked up before any step and did not find, its registry having
 * answered: the name or tag is wrong (or, for an automatic build, the server's setting is).
 */
function imageNotFound(image: string, facts: BuildFailureFacts, name: string): Diagnosis {
  const plain = image.replace(/^docker\.io\//, "").replace(/^library\//, "");
  const from = facts.dockerfile?.text ? dockerfileSteps(facts.dockerfile.text).find((step) => step.keyword === "FROM" && step.text.includes(plain.split("@")[0]!)) : undefined;
  const auto = facts.dockerfile?.origin === "auto";
  return {
    kind: "build_step_failed",
    title: `The base image ${plain} could not be found`,
    detail: `${capitalize(name)} starts FROM ${plain}${from ? ` (line ${from.line})` : ""}, which this server does not have and its registry does not know: ${facts.message}`,
    fix: auto
      ? "The base image of an automatic build comes from the server's settings (REPOSITE_BASE_IMAGE_*): its operator has to correct the setting or put the image on the Docker Engine (`reposite admin images` lists what is missing). Nothing in the repository needs to change."
      : `Check the image's name and tag on ${from ? `line ${from.line}` : "the FROM line"} of ${name} (it must exist and be public), then deploy again.`,
    evidence: { ...(from ? { dockerfile_line: from.line, step: from.text } : {}), image: plain },
  };
}

function stepEvidence(step: FailedStep): { dockerfile_line?: number; step: string } {
  return { ...(step.instruction ? { dockerfile_line: step.instruction.line } : {}), step: step.instruction?.text ?? step.text };
}

/** What usually makes a step of this kind fail, and how to fix it. */
function stepFix(step: FailedStep, name: string): string {
  const keyword = (step.instruction?.keyword ?? step.text.split(/\s+/)[0] ?? "").toUpperCase();
  const line = step.instruction ? `line ${step.instruction.line}` : `step ${step.number}`;
  if (keyword === "FROM") return `The base image on ${line} of ${name} could not be used: check its name and tag (it must exist and be public), then deploy again.`;
  if (keyword === "COPY" || keyword === "ADD") {
    return `The files ${line} copies must exist in the repository at that path (and not be left out by .dockerignore): correct the path in ${name} or add the files, then deploy again.`;
  }
  return (
    `Fix the command on ${line} of ${name} so that it succeeds; its last output above says why it stopped ` +
    "(often a package that is missing or misspelled, a failing test or script, or a file that is not there yet at that step). Then deploy again."
  );
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
