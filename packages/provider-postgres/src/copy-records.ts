import type { RecordStorage } from "@reposite/core";

/** Records of one kind (the key's first segment: `projects`, `tokens` …) on each side. */
export interface PrefixCount {
  prefix: string;
  source: number;
  target: number;
}

export interface CopyReport {
  /** Records written to the target (new, or different there). */
  copied: number;
  /** Records the target held already, byte for byte. */
  unchanged: number;
  /** Every prefix found on either side, in order. */
  counts: PrefixCount[];
  /** The prefixes whose counts differ: the copy is not whole (or the target held other records). */
  mismatched: PrefixCount[];
}

/** Reads and writes a few records at a time: a large installation copies in minutes, not one round trip per record in turn. */
const PARALLEL = 8;

const prefixOf = (key: string) => key.split(":")[0]!;

function countByPrefix(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(prefixOf(key), (counts.get(prefixOf(key)) ?? 0) + 1);
  return counts;
}

const sameBytes = (a: unknown, b: unknown) => Buffer.isBuffer(a) && Buffer.isBuffer(b) ? a.equals(b) : a === b;
const asBytes = (value: unknown) => (typeof value === "string" ? Buffer.from(value, "utf8") : value);

/**
 * Copies every record of `from` to `to` as bytes, then counts both sides per key prefix. A record
 * the target holds already with the same bytes is left alone, so a second run changes nothing
 * (and a run that stopped half-way can simply be run again).
 */
export async function copyRecords(from: RecordStorage, to: RecordStorage): Promise<CopyReport> {
  const keys = await from.getKeys("");
  let copied = 0;
  let unchanged = 0;
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const value = asBytes(await from.getItemRaw(key));
      if (value === null || value === undefined) continue; // removed while copying: the counts will say
      if (sameBytes(asBytes(await to.getItemRaw(key)), value)) {
        unchanged++;
        continue;
      }
      await to.setItemRaw(key, value);
      copied++;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));

  const source = countByPrefix(await from.getKeys(""));
  const target = countByPrefix(await to.getKeys(""));
  const counts = [...new Set([...source.keys(), ...target.keys()])]
    .sort()
    .map((prefix) => ({ prefix, source: source.get(prefix) ?? 0, target: target.get(prefix) ?? 0 }));
  return { copied, unchanged, counts, mismatched: counts.filter((count) => count.source !== count.target) };
}
