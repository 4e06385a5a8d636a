/** One instruction of a Dockerfile, as the classic builder counts its steps. */
export interface DockerfileStep {
  /** The instruction's keyword, upper case (`RUN`, `FROM` …). */
  keyword: string;
  /** The instruction as one line: continuations joined, comment lines inside it dropped. */
  text: string;
  /** The line it starts on (1-based). */
  line: number;
}

/**
 * The instructions of a Dockerfile in order, each with the line it starts on: step N of a
 * classic build (`Step N/M : …` in its log) is the N-th of them. Follows the builder's own
 * reading: parser directives (`# escape=` changes the continuation character) at the top,
 * comment and blank lines skipped (also inside a continued instruction), a line ending in the
 * escape character continued by the next.
 */
export function dockerfileSteps(text: string): DockerfileStep[] {
  const lines = text.split(/\r?\n/);
  let escape = "\\";
  let at = 0;
  // Parser directives: `# name=value` lines at the very top, before any other line.
  for (; at < lines.length; at++) {
    const directive = /^\s*#\s*([a-zA-Z][a-zA-Z0-9]*)\s*=\s*(\S+)\s*$/.exec(lines[at]!);
    if (!directive) break;
    if (directive[1]!.toLowerCase() === "escape" && (directive[2] === "`" || directive[2] === "\\")) escape = directive[2];
  }
  const continues = (line: string) => line.trimEnd().endsWith(escape);
  const steps: DockerfileStep[] = [];
  for (; at < lines.length; at++) {
    const first = lines[at]!;
    if (isBlankOrComment(first)) continue;
    const start = at;
    const parts: string[] = [];
    let line = first;
    while (continues(line) && at + 1 < lines.length) {
      parts.push(line.trimEnd().slice(0, -escape.length));
      at++;
      // Comment and blank lines inside a continued instruction are dropped, the instruction goes on.
      while (at + 1 < lines.length && isBlankOrComment(lines[at]!)) at++;
      line = lines[at]!;
    }
    parts.push(continues(line) ? line.trimEnd().slice(0, -escape.length) : line);
    const joined = parts.join(" ").trim();
    const keyword = /^(\S+)/.exec(joined)?.[1]?.toUpperCase() ?? "";
    steps.push({ keyword, text: joined.replace(/\s+/g, " "), line: start + 1 });
  }
  return steps;
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trimStart();
  return trimmed === "" || trimmed.startsWith("#");
}

/**
 * Whether the image's last stage says what to run (`CMD` or `ENTRYPOINT`), following a stage
 * built `FROM` an earlier stage of the same file. False means the image runs whatever its base
 * image runs by default (a shell or a REPL for the usual bases), or nothing.
 */
export function hasStartCommand(steps: readonly DockerfileStep[]): boolean {
  const stages: { name: string | null; base: string; steps: DockerfileStep[] }[] = [];
  for (const step of steps) {
    if (step.keyword === "FROM") {
      const words = step.text.split(/\s+/).slice(1).filter((word) => !word.startsWith("--"));
      const as = words.findIndex((word) => word.toUpperCase() === "AS");
      stages.push({ name: as >= 0 ? (words[as + 1]?.toLowerCase() ?? null) : null, base: (words[0] ?? "").toLowerCase(), steps: [] });
    } else stages.at(-1)?.steps.push(step);
  }
  for (let index = stages.length - 1; index >= 0; ) {
    const stage = stages[index]!;
    if (stage.steps.some((step) => step.keyword === "CMD" || step.keyword === "ENTRYPOINT")) return true;
    const earlier = stages.slice(0, index).findLastIndex((candidate) => candidate.name === stage.base);
    if (earlier < 0) return false;
    index = earlier;
  }
  return false;
}

/** The base image of the last stage as written (`node:22`), or null. */
export function finalBaseImage(steps: readonly DockerfileStep[]): string | null {
  const from = steps.findLast((step) => step.keyword === "FROM");
  return from?.text.split(/\s+/).slice(1).find((word) => !word.startsWith("--")) ?? null;
}

/** Instructions BuildKit's Dockerfile frontend makes a numbered step of (after the stage's `FROM`, step 1). */
const BUILDKIT_COUNTED = new Set(["RUN", "COPY", "ADD", "WORKDIR"]);

/**
 * The Dockerfile line of BuildKit's step `[<stage> <number>/<of>]`: stages are named by their `AS`
 * name (lower case) or `stage-<index>`, the name left out when the file has one stage; a stage's
 * `FROM` is step 1, then each `RUN`, `COPY`, `ADD` and `WORKDIR` counts. Null when the file has no
 * such step.
 */
export function stageStepLine(dockerfile: string, stage: string | null, number: number): number | null {
  const stages: { name: string; lines: number[] }[] = [];
  for (const step of dockerfileSteps(dockerfile)) {
    if (step.keyword === "FROM") {
      const words = step.text.split(/\s+/).slice(1).filter((word) => !word.startsWith("--"));
      const as = words.findIndex((word) => word.toUpperCase() === "AS");
      stages.push({ name: as >= 0 && words[as + 1] ? words[as + 1]!.toLowerCase() : `stage-${stages.length}`, lines: [step.line] });
    } else if (BUILDKIT_COUNTED.has(step.keyword)) stages.at(-1)?.lines.push(step.line);
  }
  const found = stage === null ? (stages.length === 1 ? stages[0] : undefined) : stages.find((each) => each.name === stage.toLowerCase());
  return found?.lines[number - 1] ?? null;
}
