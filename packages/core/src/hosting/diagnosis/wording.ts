/** How much of an output a diagnosis quotes. */
export const QUOTED_LINES = 12;

/** The last lines of an output, indented, for a diagnosis's `detail`; "" when there are none. */
export function quoted(lines: readonly string[], count = QUOTED_LINES): string {
  // A line repeated (an error logged at every health probe) shows once, with how many times.
  const runs: { line: string; times: number }[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const last = runs.at(-1);
    if (last?.line === line) last.times++;
    else runs.push({ line, times: 1 });
  }
  return runs
    .slice(-count)
    .map(({ line, times }) => `    ${line.length > 300 ? `${line.slice(0, 300)}…` : line}${times > 1 ? ` (${times} times)` : ""}`)
    .join("\n");
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
