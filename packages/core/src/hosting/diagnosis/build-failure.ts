import type { FailedBuildStep } from "../../ports/container-runtime.js";
import { failedStep, stepFromBuilder, type FailedStep } from "./build-step.js";
import type { Diagnosis } from "./diagnosis.js";
import { dockerfileName, type DockerfileFacts } from "./dockerfile-facts.js";
import { formatMb, memoryNeeded } from "./size-needed.js";
import { minutes, withOutput } from "./wording.js";

/** What is known of a build that failed. */
export interface BuildFailureFacts {
  reason: "failed" | "out_of_memory" | "timeout";
  exitCode?: number;
  /** The builder's own message (`The command '/bin/sh -c exit 3' returned a non-zero code: 3`). */
  message: string;
  /** The build's log lines so far (the last few hundred are enough). */
  log: readonly string[];
  /** The failing step as the builder told it (BuildKit), when it did: preferred to reading the log. */
  step?: FailedBuildStep;
  dockerfile: DockerfileFacts | null;
  buildMemoryMb: number;
  buildTimeoutMs: number;
  /** The app's memory limit now (MB). */
  appMemoryMb: number;
}

/** A failed build explained: which step (its Dockerfile line), what it printed, what to do. */
export function diagnoseBuildFailure(facts: BuildFailureFacts): Diagnosis {
  const step = facts.step ? stepFromBuilder(facts.step, facts.dockerfile?.text ?? null) : failedStep(facts.log, facts.dockerfile?.text ?? null);
  const name = dockerfileName(facts.dockerfile);
  const where = step ? stepPlace(step, name) : `a step of ${name}`;
  const evidence = step ? stepEvidence(step) : {};
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
    const line = /line (\d+)/i.exec(facts.message)?.[1];
    return {
      kind: "source_problem",
      title: `${capitalize(name)} could not be built`,
      detail: `The builder refused ${name} before any step ran: ${facts.message}`,
      fix: line
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
    fix: stepFix(step, name),
    evidence: { ...evidence, ...(facts.exitCode !== undefined ? { exit_code: facts.exitCode } : {}) },
  };
}

/** `step 3 of 5 (line 4 of the repository's Dockerfile (Dockerfile): RUN exit 3)`. */
function stepPlace(step: FailedStep, name: string): string {
  const line = step.instruction ? `line ${step.instruction.line} of ${name}` : name;
  return `step ${step.number} of ${step.of} (${line}: ${step.instruction?.text ?? step.text})`;
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
