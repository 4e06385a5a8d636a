import type { FailedBuildStep } from "../../ports/container-runtime.js";
import { dockerfileSteps, stageStepLine, type DockerfileStep } from "./dockerfile-steps.js";
import { BUILDKIT_ERROR, BUILDKIT_STEP, CLASSIC_STEP } from "./step-lines.js";

/** Builder lines that say nothing about why a step failed. */
const BUILDER_NOISE = [/^ ---> /, /^Removing intermediate container /, /^Sending build context/, /^DEPRECATED:/];

/** BuildKit's own lines about a step (`#7 CACHED`, `#7 DONE 0.4s`, `#7 ERROR: …`, `#7 sha256:… 1.2MB / 3MB`), not its output. */
const BUILDKIT_NOISE = /^#\d+ (?:CACHED$|DONE\b|ERROR: |sha256:|extracting |resolve |transferring )/;

/** The step a build was in when it ended, with its Dockerfile line when the Dockerfile is known. */
export interface FailedStep {
  number: number;
  of: number;
  /** BuildKit's stage (`build`, `stage-1`), or null (one stage, or the classic builder, which counts steps through the whole file). */
  stage?: string | null;
  /** The step as the builder printed it. */
  text: string;
  /** The instruction in the Dockerfile, when it could be matched. */
  instruction: DockerfileStep | null;
  /** The step's own output (builder lines left out), last lines last. */
  output: string[];
}

/**
 * The step a build's log says it failed at, mapped to its Dockerfile instruction, with the output
 * it printed. Reads both builders' logs: the classic builder's last `Step N/M : …` (the N-th
 * instruction of the file), and BuildKit's decoded trace (the step with an `ERROR:` line, else the
 * last one started; `[stage n/m]` counted in its stage). Null when no step started (the Dockerfile
 * was refused, or a base image could not be had, before any step).
 */
export function failedStep(log: readonly string[], dockerfile: string | null): FailedStep | null {
  return buildkitStep(log, dockerfile) ?? classicStep(log, dockerfile);
}

function classicStep(log: readonly string[], dockerfile: string | null): FailedStep | null {
  const index = log.findLastIndex((line) => CLASSIC_STEP.test(line));
  if (index < 0) return null;
  const match = CLASSIC_STEP.exec(log[index]!)!;
  const number = Number(match[1]);
  const candidate = dockerfile === null ? undefined : dockerfileSteps(dockerfile)[number - 1];
  const printed = match[3]!.trim();
  const output = log.slice(index + 1).filter((line) => !BUILDER_NOISE.some((noise) => noise.test(line)));
  return { number, of: Number(match[2]), text: printed, instruction: sameKeyword(candidate, printed), output };
}

function buildkitStep(log: readonly string[], dockerfile: string | null): FailedStep | null {
  const starts = new Map<string, RegExpExecArray>();
  let last: string | null = null;
  let failed: { id: string; cancelled: boolean } | null = null;
  for (const line of log) {
    const start = BUILDKIT_STEP.exec(line);
    // A step's first line names it; a later line of the same number is its output.
    if (start && !starts.has(start[1]!)) {
      starts.set(start[1]!, start);
      last = start[1]!;
    }
    const error = BUILDKIT_ERROR.exec(line);
    if (!error || !starts.has(error[1]!)) continue;
    // A step cancelled because another failed says `context canceled`: the first real error is the cause.
    const cancelled = /context canceled/i.test(error[2]!);
    if (failed === null || (failed.cancelled && !cancelled)) failed = { id: error[1]!, cancelled };
  }
  const id = failed?.id ?? last;
  if (id === null) return null;
  const [, , stage = null, number, of, printed] = starts.get(id)!;
  const prefix = `#${id} `;
  const header = log.indexOf(starts.get(id)![0]);
  const output = log.filter((line, at) => at !== header && line.startsWith(prefix) && !BUILDKIT_NOISE.test(line)).map((line) => line.slice(prefix.length));
  const line = dockerfile === null ? null : stageStepLine(dockerfile, stage, Number(number));
  const candidate = line === null ? undefined : dockerfileSteps(dockerfile!).find((step) => step.line === line);
  return { number: Number(number), of: Number(of), stage, text: printed!.trim(), instruction: sameKeyword(candidate, printed!.trim()), output };
}

/** The builder prints the instruction with its keyword as written; a mismatch means another file. */
function sameKeyword(candidate: DockerfileStep | undefined, printed: string): DockerfileStep | null {
  return candidate && printed.split(/\s+/)[0]?.toUpperCase() === candidate.keyword ? candidate : null;
}

/**
 * The step the builder said failed (BuildKit: `[build 3/5] RUN …`, its Dockerfile line found by
 * provider-docker), as a `FailedStep`; its instruction is the Dockerfile's at that line. Null for
 * what is not a step of the Dockerfile (`[internal] load metadata for …`: a base image's lookup).
 */
export function stepFromBuilder(step: FailedBuildStep, dockerfile: string | null): FailedStep | null {
  if (step.number < 1) return null;
  const instruction = step.dockerfileLine !== null && dockerfile !== null ? (dockerfileSteps(dockerfile).find((each) => each.line === step.dockerfileLine) ?? null) : null;
  return { number: step.number, of: step.of, stage: step.stage, text: step.instruction, instruction, output: step.output };
}
