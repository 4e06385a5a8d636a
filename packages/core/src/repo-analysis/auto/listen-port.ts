/**
 * The port a program listens on when its source fixes one and never reads `PORT`: Reposite gives
 * every app `PORT`, and a program that ignores it listens where its source says (`":8080"`,
 * `"0.0.0.0:8000"`). Null when the program reads PORT or no single fixed port shows.
 */
export function fixedListenPort(sources: string[], readsPort: RegExp): number | null {
  const text = sources.join("\n");
  if (readsPort.test(text)) return null;
  const ports = new Set(
    [...text.matchAll(/["'`](?:0\.0\.0\.0|127\.0\.0\.1|localhost|\[::\])?:(\d{2,5})["'`]|\(\s*\[\s*0\s*,\s*0\s*,\s*0\s*,\s*0\s*\]\s*,\s*(\d{2,5})\s*\)/g)].map((match) => Number(match[1] ?? match[2])),
  );
  return ports.size === 1 ? [...ports][0]! : null;
}

/** Sources that bind to the loopback address only, which a container does not expose. */
export function bindsLoopback(sources: string[]): boolean {
  return /["'`](?:127\.0\.0\.1|localhost):\d+["'`]|\[\s*127\s*,\s*0\s*,\s*0\s*,\s*1\s*\]/.test(sources.join("\n"));
}
