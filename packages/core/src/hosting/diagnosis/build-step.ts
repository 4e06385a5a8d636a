import type { FailedBuildStep } from "../../ports/container-runtime.js";
import { dockerfileSteps, type DockerfileStep } from "./dockerfile-steps.js";

/** The classic builder's step header: `Step 3/5 : RUN exit 3`. */
const STEP_LINE = /^Step (\d+)\/(\d+) : ?(.*)$/;

/** Builder lines that say nothing about why a step failed. */
const BUILDER_NOISE = [/^ ---> /, /^Removing intermediate container /, /^Sending build context/, /^DEPRECATED:/];

/** The step a build was in when it ended, with its Dockerfile line when the Dockerfile is known. */
export interface FailedStep {
  number: number;
  of: number;
  /** The step as the builder printed it. */
  text: string;
  /** The instruction in the Dockerfile, when it could be matched. */
  instruction: DockerfileStep | null;
  /** The step's own output (builder lines left out), last lines last. */
  output: string[];
}

/**
 * The last step a build's log started (`Step N/M : …`), mapped to the N-th instruction of the
 * Dockerfile, and the output it printed. Null when no step started (the Dockerfile was refused
 * before, or the log is not a classic builder's).
 */
export function failedStep(log: readonly string[], dockerfile: string | null): FailedStep | null {
  let found: { index: number; match: RegExpExecArray } | null = null;
  for (let index = log.length - 1; index >= 0 && !found; index--) {
    const match = STEP_LINE.exec(log[index]!);
    if (match) found = { index, match };
  }
  if (!found) return null;
  const number = Number(found.match[1]);
  const steps = dockerfile === null ? [] : dockerfileSteps(dockerfile);
  const candidate = steps[number - 1];
  const printed = found.match[3]!.trim();
  // The builder prints the instruction with its keyword as written; a mismatch means another file.
  const instruction = candidate && printed.split(/\s+/)[0]?.toUpperCase() === candidate.keyword ? candidate : null;
  const output = log.slice(found.index + 1).filter((line) => !BUILDER_NOISE.some((noise) => noise.test(line)));
  return { number, of: Number(found.match[2]), text: printed, instruction, output };
}

/**
 * The step the builder said failed (BuildKit: `[build 3/5] RUN …`, its Dockerfile line found by
 * provider-docker), as a `FailedStep`; its instruction is the Dockerfile's at that line.
 */
export function stepFromBuilder(step: FailedBuildStep, dockerfile: string | null): FailedStep {
  const instruction = step.dockerfileLine !== null && dockerfile !== null ? (dockerfileSteps(dockerfile).find((each) => each.line === step.dockerfileLine) ?? null) : null;
  return { number: step.number, of: step.of, text: step.instruction, instruction, output: step.output };
}
