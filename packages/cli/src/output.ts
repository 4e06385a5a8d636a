/** Where a command writes. Tests may pass their own; the binary writes to the process's streams. */
export interface CliIo {
  /** A line on stdout. */
  out(line: string): void;
  /** Text on stdout as is (a build log arriving in pieces). */
  write(text: string): void;
  /** A line on stderr. */
  err(line: string): void;
  /** Raw text on stderr (a prompt, a progress line). */
  writeErr(text: string): void;
  /** Whether stdout is a terminal (progress lines, opening a browser). */
  stdoutIsTerminal: boolean;
  /** Whether stdin is a terminal (prompts). */
  stdinIsTerminal: boolean;
  stdin: NodeJS.ReadableStream;
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(`${plainUnlessTerminal(line, process.stdout)}\n`),
  write: (text) => process.stdout.write(text),
  err: (line) => process.stderr.write(`${plainUnlessTerminal(line, process.stderr)}\n`),
  writeErr: (text) => process.stderr.write(text),
  stdoutIsTerminal: process.stdout.isTTY === true,
  stdinIsTerminal: process.stdin.isTTY === true,
  stdin: process.stdin,
};

/** citty colours its messages and usage; a pipe or a file gets plain text. */
function plainUnlessTerminal(text: string, stream: NodeJS.WriteStream): string {
  return stream.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * A command's output in one of two forms: for people (lines of text, notes on stderr) or, with
 * `--json`, machine-readable JSON on stdout only: one document, or one object per line for the
 * commands that follow something as it happens.
 */
export class Output {
  constructor(
    readonly io: CliIo,
    readonly json: boolean,
  ) {}

  /** The command's answer: `value` as JSON, or `human()` prints it for people. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.io.out(JSON.stringify(value));
    else human();
  }

  /** One JSON line of a followed stream (`--json` only). */
  event(value: Record<string, unknown>): void {
    if (this.json) this.io.out(JSON.stringify(value));
  }

  /** A line for people on stdout; nothing in JSON mode. */
  line(text = ""): void {
    if (!this.json) this.io.out(text);
  }

  /** Something for people to know that is not the answer (stderr); nothing in JSON mode. */
  note(text: string): void {
    if (!this.json) this.io.err(text);
  }
}

/** Rows as aligned columns, for people. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!))).join("  ").trimEnd());
}

/** `label  value` lines, aligned. */
export function fields(pairs: [string, string | null | undefined][]): string[] {
  return table(pairs.filter(([, value]) => value !== undefined).map(([label, value]) => [label, value ?? "-"]));
}
