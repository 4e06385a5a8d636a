// CSI sequences (colours, cursor moves) and OSC sequences (window titles) that progress bars print.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

// Other control characters (backspace, bell …) but the tab; `\r` and `\n` are handled before.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** A line without a line feed is cut at this length, so a progress bar that never ends a line stays bounded. */
const MAX_PENDING = 64 * 1024;

/**
 * Turns build output, as it arrives in chunks, into readable lines: one per `\n`, without ANSI
 * escapes, and a line redrawn with `\r` (progress bars, spinners) shown the way a terminal would
 * leave it, by its last drawing. Blank lines are dropped.
 */
export class BuildLogLines {
  private pending = "";

  constructor(private readonly onLine: (line: string) => void) {}

  push(text: string): void {
    this.pending += text;
    for (let at = this.pending.indexOf("\n"); at !== -1; at = this.pending.indexOf("\n")) {
      this.emit(this.pending.slice(0, at));
      this.pending = this.pending.slice(at + 1);
    }
    if (this.pending.length > MAX_PENDING) this.pending = readableLine(this.pending).slice(-MAX_PENDING);
  }

  /** Emits what is left without a line ending. */
  end(): void {
    this.emit(this.pending);
    this.pending = "";
  }

  private emit(raw: string): void {
    const line = readableLine(raw);
    if (line.trim() !== "") this.onLine(line);
  }
}

/** What a terminal shows for `raw`: escapes dropped, and of `\r`-separated drawings the last one. */
export function readableLine(raw: string): string {
  const drawings = raw.replace(ANSI, "").split("\r");
  for (let i = drawings.length - 1; i >= 0; i--) {
    const drawing = drawings[i]!.replace(CONTROL, "").trimEnd();
    if (drawing.trim() !== "") return drawing;
  }
  return "";
}
