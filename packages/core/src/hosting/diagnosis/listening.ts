/** A socket listening inside a container: its local address and port. */
export interface ListeningSocket {
  address: string;
  port: number;
}

/** The command that prints the container's TCP sockets: needs only `cat`, no `ss` or `netstat`. */
export const LISTENING_COMMAND = ["cat", "/proc/net/tcp", "/proc/net/tcp6"];

/** Docker's embedded DNS listens inside every container on a user-defined network: not the app. */
const DOCKER_DNS = "127.0.0.11";

/** `st` of a listening socket in /proc/net/tcp. */
const LISTEN = "0A";

/**
 * The listening TCP sockets in the text of `/proc/net/tcp` and `/proc/net/tcp6` (as printed
 * one after the other), Docker's own DNS left out, each once; null when the text is not theirs
 * (`cat` missing in the image, say). Addresses are as the kernel prints them, in the machine's
 * byte order (little-endian, as on x86 and ARM servers).
 */
export function parseListening(text: string): ListeningSocket[] | null {
  if (!/local_address/.test(text)) return null;
  const found = new Map<string, ListeningSocket>();
  for (const line of text.split("\n")) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state !== LISTEN || !local) continue;
    const [hex, portHex] = local.split(":");
    if (!hex || !portHex) continue;
    const address = hex.length === 8 ? ipv4(hex) : hex.length === 32 ? ipv6(hex) : null;
    if (address === null || address === DOCKER_DNS) continue;
    const socket = { address, port: parseInt(portHex, 16) };
    found.set(`${socket.address} ${socket.port}`, socket);
  }
  return [...found.values()];
}

/** 127.0.0.1, ::1 and ::ffff:127.x: reachable only from inside the container. */
export function isLoopback(address: string): boolean {
  return address.startsWith("127.") || address === "::1" || address.startsWith("::ffff:127.");
}

/** `0100007F` → `127.0.0.1` (the four bytes of a little-endian word). */
function ipv4(hex: string): string {
  const bytes = [6, 4, 2, 0].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return bytes.join(".");
}

/** Four little-endian words → the usual IPv6 text (`::`, `::1`, `::ffff:127.0.0.1`). */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < 4; word++) {
    const chunk = hex.slice(word * 8, word * 8 + 8);
    for (const at of [6, 4, 2, 0]) bytes.push(parseInt(chunk.slice(at, at + 2), 16));
  }
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join(".")}`;
  }
  const groups: string[] = [];
  for (let at = 0; at < 16; at += 2) groups.push(((bytes[at]! << 8) | bytes[at + 1]!).toString(16));
  return compressIpv6(groups);
}

/** The longest run of zero groups becomes `::`. */
function compressIpv6(groups: string[]): string {
  let best = { start: -1, length: 0 };
  for (let start = 0; start < groups.length; ) {
    if (groups[start] !== "0") {
      start++;
      continue;
    }
    let end = start;
    while (end < groups.length && groups[end] === "0") end++;
    if (end - start > best.length && end - start > 1) best = { start, length: end - start };
    start = end;
  }
  if (best.start < 0) return groups.join(":");
  return `${groups.slice(0, best.start).join(":")}::${groups.slice(best.start + best.length).join(":")}`;
}
