import type { CliIo } from "./output.js";

const CLEAR = "\r\x1b[K";

/**
 * One status line at the bottom of a terminal (`building · 0:42 · 120 lines`), redrawn in place
 * while a log scrolls above it. Only on a terminal: in a pipe or a file it writes nothing, so the
 * log stays clean for programs.
 */
export class ProgressLine {
  readonly #io: CliIo;
  readonly #active: boolean;
  #text = "";
  #shown = false;

  constructor(io: CliIo, enabled: boolean) {
    this.#io = io;
    this.#active = enabled && io.stdoutIsTerminal;
  }

  get active(): boolean {
    return this.#active;
  }

  /** Shows `text` as the status. */
  set(text: string): void {
    if (!this.#active) return;
    this.#text = text;
    this.#io.write(`${CLEAR}${text}`);
    this.#shown = true;
  }

  /** Writes log text above the status line (the status is drawn again after it). */
  write(text: string): void {
    if (!this.#active) return this.#io.write(text);
    if (this.#shown) this.#io.write(CLEAR);
    this.#io.write(text);
    // A log chunk may end mid-line; the status waits for the line's end.
    if (this.#text && text.endsWith("\n")) this.#io.write(this.#text);
    this.#shown = text.endsWith("\n") && this.#text !== "";
  }

  /** Removes the status line for good. */
  done(): void {
    if (this.#active && this.#shown) this.#io.write(CLEAR);
    this.#shown = false;
    this.#text = "";
  }
}

/** `1:05` for 65 000 ms. */
export function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
