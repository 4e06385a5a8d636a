/** The API's timestamp shape, `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** Reads a timestamp written by `formatTimestamp`. */
export function parseTimestamp(value: string): Date {
  return new Date(`${value.replace(" ", "T")}Z`);
}
