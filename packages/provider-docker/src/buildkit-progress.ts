import { BuildLogLines } from "./build-log-lines.js";
import type { BuildkitStatus } from "./buildkit-status.js";

/** Output lines kept per step, for the failing step's evidence; of them, at most this many from stderr. */
const KEPT_OUTPUT_LINES = 200;
const KEPT_ERROR_LINES = 50;

/** A step as BuildKit names it: `[build 3/5] RUN npm ci`, or `[2/3] RUN …` in a one-stage Dockerfile. */
const STEP_NAME = /^\[(?:(\S+) )?(\d+)\/(\d+)\] (.*)$/s;

const CANCELLED = /context canceled/i;

/** The step a BuildKit build failed at, parsed from its vertex. */
export interface BuildkitFailedStep {
  /** As BuildKit names it: `[build 3/5] RUN npm ci`. */
  name: string;
  /** The stage (`build`, `stage-1`), or null in a one-stage Dockerfile. */
  stage: string | null;
  number: number;
  of: number;
  /** The instruction as BuildKit shows it (`RUN npm ci`, build arguments expanded). */
  instruction: string;
  /** BuildKit's error (`executor failed running [/bin/sh -c npm ci]: exit code: 1`). */
  error: string;
  /** The step's last output lines, oldest first. */
  output: string[];
}

interface Step {
  number: number;
  name: string;
  announced: boolean;
  done: boolean;
  /** Split into lines per stream: stdout and stderr arrive apart, each cut anywhere. */
  stdout: BuildLogLines;
  stderr: BuildLogLines;
  /** The last lines of each stream, numbered in the order they came. */
  kept: { stdout: KeptLine[]; stderr: KeptLine[] };
}

interface KeptLine {
  at: number;
  text: string;
}

/**
 * Turns BuildKit's trace into the lines `docker build --progress=plain` prints, without its
 * timings: `#5 [build 2/4] RUN npm ci` when a step starts, `#5 <output line>` as it prints,
 * `#5 CACHED`, `#5 ERROR: <why>`. Steps are numbered in the order they first appear, so lines
 * of steps running side by side are told apart by their number. Remembers the step that failed.
 */
export class BuildkitProgress {
  private readonly steps = new Map<string, Step>();
  private lineCount = 0;
  private failed: { step: Step; error: string } | null = null;

  constructor(private readonly onLine: (line: string) => void) {}

  push(status: BuildkitStatus): void {
    for (const vertex of status.vertexes) {
      const step = this.step(vertex.digest, vertex.name);
      if (!step.announced && (vertex.started || vertex.cached || vertex.completed)) {
        step.announced = true;
        this.onLine(`#${step.number} ${step.name}`);
      }
      if (vertex.completed && !step.done) {
        step.done = true;
        step.stdout.end();
        step.stderr.end();
        if (vertex.cached) this.onLine(`#${step.number} CACHED`);
        if (vertex.error) {
          this.onLine(`#${step.number} ERROR: ${vertex.error}`);
          // Steps cancelled because another failed say `context canceled`: the first real error is the cause.
          if (!this.failed || (CANCELLED.test(this.failed.error) && !CANCELLED.test(vertex.error))) this.failed = { step, error: vertex.error };
        }
      }
    }
    for (const log of status.logs) {
      const step = this.step(log.vertex, "");
      (log.stream === 2 ? step.stderr : step.stdout).push(Buffer.from(log.msg).toString("utf8"));
    }
    for (const warning of status.warnings) {
      const step = this.steps.get(warning.vertex);
      this.onLine(`${step ? `#${step.number} ` : ""}WARNING: ${warning.short}`);
    }
  }

  /** Ends the lines of steps still printing (a build torn down mid-step). */
  end(): void {
    for (const step of this.steps.values()) {
      step.stdout.end();
      step.stderr.end();
    }
  }

  /** The step whose error ended the build, if one did. */
  failedStep(): BuildkitFailedStep | null {
    return this.failed ? describe(this.failed.step, this.failed.error) : null;
  }

  /** The last Dockerfile step that started and did not end: where a stopped build was. */
  runningStep(): BuildkitFailedStep | null {
    const running = [...this.steps.values()].filter((step) => step.announced && !step.done && STEP_NAME.test(step.name)).at(-1);
    return running ? describe(running, "") : null;
  }

  private step(digest: string, name: string): Step {
    let step = this.steps.get(digest);
    if (!step) {
      const keep = (stream: "stdout" | "stderr") => (line: string) => {
        const kept = created.kept[stream];
        kept.push({ at: this.lineCount++, text: line });
        if (kept.length > KEPT_OUTPUT_LINES) kept.shift();
        this.onLine(`#${created.number} ${line}`);
      };
      const created: Step = {
        number: this.steps.size + 1,
        name,
        announced: false,
        done: false,
        stdout: new BuildLogLines(keep("stdout")),
        stderr: new BuildLogLines(keep("stderr")),
        kept: { stdout: [], stderr: [] },
      };
      step = created;
      this.steps.set(digest, step);
    }
    if (name && !step.name) step.name = name;
    return step;
  }
}

function describe(step: Step, error: string): BuildkitFailedStep {
  const parsed = STEP_NAME.exec(step.name);
  return {
    name: step.name,
    stage: parsed?.[1] ?? null,
    number: parsed ? Number(parsed[2]) : 0,
    of: parsed ? Number(parsed[3]) : 0,
    instruction: parsed?.[4] ?? step.name,
    error,
    output: lastOutput(step),
  };
}

/**
 * The step's last lines in the order they came, with its last stderr lines kept even when a
 * flood of stdout came after them: errors are what a diagnosis reads.
 */
function lastOutput(step: Step): string[] {
  const errors = step.kept.stderr.slice(-KEPT_ERROR_LINES);
  const outputs = step.kept.stdout.slice(-(KEPT_OUTPUT_LINES - errors.length));
  return [...errors, ...outputs].sort((a, b) => a.at - b.at).map((line) => line.text);
}
