import { terminalSize } from "@reposite/core";

/** What the page sends: keystrokes (as xterm hands them over) or its new size. */
export type TerminalMessage = { type: "input"; data: string } | { type: "resize"; cols: number; rows: number };

/** Largest frame the page may send: a big paste, not a file upload. */
export const TERMINAL_MESSAGE_MAX_BYTES = 64 * 1024;

/**
 * A text frame from the page as a message, or null for anything else (not JSON, another type,
 * fields missing or of the wrong type). A size outside the bounds is held to them.
 */
export function parseTerminalMessage(text: string): TerminalMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const message = value as Record<string, unknown>;
  if (message.type === "input" && typeof message.data === "string") return { type: "input", data: message.data };
  if (message.type === "resize" && Number.isInteger(message.cols) && Number.isInteger(message.rows)) {
    return { type: "resize", ...terminalSize({ cols: message.cols as number, rows: message.rows as number }) };
  }
  return null;
}
