/** How much of an output a diagnosis quotes. */
export const QUOTED_LINES = 12;

/** The last lines of an output, indented, for a diagnosis's `detail`; "" when there are none. */
export function quoted(lines: readonly string[], count = QUOTED_LINES): string {
  const kept = lines.filter((line) => line.trim() !== "").slice(-count);
  return kept.map((line) => `    ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`).join("\n");
}

/** `detail` followed by the quoted output under `heading`, or by `none` when there is no output. */
export function withOutput(detail: string, heading: string, lines: readonly string[], none = ""): string {
  const text = quoted(lines);
  if (text === "") return none ? `${detail} ${none}` : detail;
  return `${detail}\n\n${heading}\n${text}`;
}

export const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

export const minutes = (ms: number) => {
  const value = Math.round(ms / 60_000);
  return value >= 1 ? `${value} minute${value === 1 ? "" : "s"}` : seconds(ms);
};
