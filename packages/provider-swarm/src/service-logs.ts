import type Docker from "dockerode";
import { ifMissing } from "./engine.js";

/**
 * The last `tail` lines of every task of the service (Swarm aggregates them across nodes), in
 * order: read through the manager, so the node a task ran on needs no connection of its own.
 */
export async function serviceLogs(docker: Docker, id: string, tail: number): Promise<string[]> {
  const raw = (await docker
    .getService(id)
    .logs({ stdout: true, stderr: true, tail, follow: false, timestamps: true } as Parameters<Docker.Service["logs"]>[0])
    .catch(ifMissing(null))) as unknown as Buffer | null;
  if (!raw) return [];
  const lines = demux(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw)))
    .split("\n")
    .filter((line) => line.length > 0);
  // Each line starts with its time: sorted by it, lines of the tasks interleave as they were written.
  const timed = lines.map((line) => {
    const space = line.indexOf(" ");
    return { at: line.slice(0, space), text: line.slice(space + 1) };
  });
  timed.sort((a, b) => a.at.localeCompare(b.at));
  return timed.slice(-tail).map((line) => line.text);
}

/** The non-TTY log format: frames of a stream byte, three zeros, a big-endian length, the bytes. */
function demux(raw: Buffer): string {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset]!;
    if (stream > 2 || raw[offset + 1] !== 0 || raw[offset + 2] !== 0 || raw[offset + 3] !== 0) return raw.toString("utf8");
    const length = raw.readUInt32BE(offset + 4);
    chunks.push(raw.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  return chunks.length ? Buffer.concat(chunks).toString("utf8") : raw.toString("utf8");
}
