import { isBuildkitMarker, isStepStart } from "./step-lines.js";

/** How much of a build's log the diagnosis keeps. */
export interface BuildLogKeeping {
  /** The last lines, whatever they are. */
  tailLines: number;
  /** Step starts and BuildKit's error lines, kept apart from the tail (a Dockerfile has a few hundred at most). */
  markerLines: number;
  /** With BuildKit, the last lines of each step (`#7 …`): steps of parallel stages interleave. */
  stepLines: number;
}

export const BUILD_LOG_KEEPING: BuildLogKeeping = { tailLines: 400, markerLines: 1_000, stepLines: 200 };

/**
 * The part of a build's log its diagnosis reads, kept as the build goes: the last lines, and apart
 * from them every step's start (and BuildKit's error lines), so the failing step is found however
 * much its output pushed its start out of the tail. `lines()` answers them in the order they came.
 */
export class BuildLogKeeper {
  private seen = 0;
  private readonly tail: [number, string][] = [];
  private readonly markers: [number, string][] = [];
  private readonly perStep = new Map<string, [number, string][]>();

  constructor(private readonly keeping: BuildLogKeeping = BUILD_LOG_KEEPING) {}

  push(line: string): void {
    const at = this.seen++;
    keepLast(this.tail, [at, line], this.keeping.tailLines);
    if (isStepStart(line) || isBuildkitMarker(line)) keepLast(this.markers, [at, line], this.keeping.markerLines);
    const step = /^#(\d+) /.exec(line)?.[1];
    if (step) {
      const lines = this.perStep.get(step) ?? [];
      this.perStep.set(step, lines);
      keepLast(lines, [at, line], this.keeping.stepLines);
    }
  }

  /** What was kept, oldest first, each line once. */
  lines(): string[] {
    const kept = new Map<number, string>([...this.markers, ...[...this.perStep.values()].flat(), ...this.tail]);
    return [...kept.entries()].sort(([a], [b]) => a - b).map(([, line]) => line);
  }
}

function keepLast<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.shift();
}
