import { isStepStart } from "./diagnosis/step-lines.js";

/**
 * The cap on one run's log: the first `headLines` lines stream live; past them only the last
 * `tailLines` are kept and written when the run ends, after a line saying how many were left
 * out and the build steps that started among them (at most `leftOutSteps`, the last ones), so the
 * tail reads under the step it belongs to. Bytes are capped the same way, and every line is cut
 * at `lineChars`, so a run's log is at most about 256 KB however chatty the build. The run record
 * keeps the last `recordTailLines`.
 */
export interface RunLogLimits {
  headLines: number;
  headBytes: number;
  tailLines: number;
  tailBytes: number;
  lineChars: number;
  recordTailLines: number;
  leftOutSteps: number;
}

export const RUN_LOG_LIMITS: RunLogLimits = {
  headLines: 1_000,
  headBytes: 128 * 1024,
  tailLines: 1_000,
  tailBytes: 128 * 1024,
  lineChars: 1_000,
  recordTailLines: 200,
  leftOutSteps: 10,
};

/** When batched lines go to the job stream: every `flushMs`, or sooner once `flushLines` wait. */
export interface RunLogBatching {
  flushMs: number;
  flushLines: number;
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/**
 * A run's build and start log on its way to the job stream. Lines are masked (the app's env
 * values) before anything else sees them, made readable (terminal colours dropped, a progress
 * line rewritten with `\r` kept as its last state) and sent in batches, so a chatty build is a
 * few deltas a second rather than one per line.
 */
export class RunLog {
  private readonly pending: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private headLines = 0;
  private headBytes = 0;
  private tail: string[] = [];
  private tailBytes = 0;
  private omitted = 0;
  private readonly omittedSteps: string[] = [];
  private readonly last: string[] = [];
  private total = 0;
  private ended = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly mask: (text: string) => string,
    private readonly batching: RunLogBatching,
    private readonly limits: RunLogLimits = RUN_LOG_LIMITS,
  ) {}

  /** Lines written so far (before the cap). */
  get lines(): number {
    return this.total;
  }

  /** Adds one or more lines (split at line ends). */
  line(text: string): void {
    if (this.ended) return;
    for (const raw of text.split(/\r?\n/)) this.add(this.clean(raw));
  }

  /** Sends what waits now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    this.write(`${this.pending.join("\n")}\n`);
    this.pending.length = 0;
  }

  /** Ends the log: the kept tail goes out after a line counting what was left out. Answers the record's tail. */
  finish(): string[] {
    if (!this.ended) {
      this.ended = true;
      if (this.omitted > 0) {
        const steps = this.omittedSteps.length > 0 ? "; the build steps that started in them follow" : "";
        this.pending.push(`… ${this.omitted} line${this.omitted === 1 ? "" : "s"} left out (a run keeps its first ${this.limits.headLines} and last ${this.limits.tailLines} lines${steps}) …`);
        this.pending.push(...this.omittedSteps);
      }
      this.pending.push(...this.tail);
      this.tail = [];
      this.flush();
    }
    return [...this.last];
  }

  private clean(raw: string): string {
    const segments = raw.replace(ANSI, "").split("\r").filter((segment) => segment.trim() !== "");
    const line = this.mask((segments.at(-1) ?? "").trimEnd());
    return line.length > this.limits.lineChars ? `${line.slice(0, this.limits.lineChars)} … (line cut)` : line;
  }

  private add(line: string): void {
    this.total += 1;
    this.last.push(line);
    if (this.last.length > this.limits.recordTailLines) this.last.shift();
    const bytes = Buffer.byteLength(line) + 1;
    if (this.omitted === 0 && this.tail.length === 0 && this.headLines < this.limits.headLines && this.headBytes + bytes <= this.limits.headBytes) {
      this.headLines += 1;
      this.headBytes += bytes;
      this.pending.push(line);
      if (this.pending.length >= this.batching.flushLines) this.flush();
      else this.timer ??= unref(setTimeout(() => this.flush(), this.batching.flushMs));
      return;
    }
    this.tail.push(line);
    this.tailBytes += bytes;
    while (this.tail.length > this.limits.tailLines || this.tailBytes > this.limits.tailBytes) {
      const dropped = this.tail.shift()!;
      this.tailBytes -= Buffer.byteLength(dropped) + 1;
      this.omitted += 1;
      if (isStepStart(dropped)) {
        this.omittedSteps.push(dropped);
        if (this.omittedSteps.length > this.limits.leftOutSteps) this.omittedSteps.shift();
      }
    }
  }
}

function unref(timer: NodeJS.Timeout): NodeJS.Timeout {
  timer.unref?.();
  return timer;
}
