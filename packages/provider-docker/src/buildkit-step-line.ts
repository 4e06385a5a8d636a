import { dockerfileSteps } from "@reposite/core";

/** Instructions BuildKit's Dockerfile frontend makes a numbered step of (after the stage's `FROM`, step 1). */
const COUNTED = new Set(["RUN", "COPY", "ADD", "WORKDIR"]);

/**
 * The Dockerfile line of BuildKit's step `[<stage> <number>/<of>]`. The frontend names stages by
 * their `AS` name (lower case), or `stage-<index>` without one, and leaves the name out when the
 * file has one stage; it numbers the stage's `FROM` 1 and then each `RUN`, `COPY`, `ADD` and
 * `WORKDIR` (other instructions only change the image's settings). Null when the step is not in
 * the text (another file, or a name this reading does not know).
 */
export function buildkitStepLine(dockerfile: string, stage: string | null, number: number): number | null {
  const stages: { name: string; lines: number[] }[] = [];
  for (const step of dockerfileSteps(dockerfile)) {
    if (step.keyword === "FROM") {
      const words = step.text.split(/\s+/).slice(1).filter((word) => !word.startsWith("--"));
      const as = words.findIndex((word) => word.toUpperCase() === "AS");
      stages.push({ name: as >= 0 && words[as + 1] ? words[as + 1]!.toLowerCase() : `stage-${stages.length}`, lines: [step.line] });
    } else if (COUNTED.has(step.keyword)) stages.at(-1)?.lines.push(step.line);
  }
  const found = stage === null ? (stages.length === 1 ? stages[0] : undefined) : stages.find((each) => each.name === stage.toLowerCase());
  return found?.lines[number - 1] ?? null;
}
