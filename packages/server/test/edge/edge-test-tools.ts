import { execFile, spawn, type ChildProcess } from "node:child_process";
import { connect, type PeerCertificate } from "node:tls";
import { dnsmasqAvailable } from "@reposite/test-support";
import { BIN } from "../server-process.js";

const which = (binary: string, args: string[]) => new Promise<boolean>((resolve) => execFile(binary, args, (error) => resolve(!error)));

/**
 * Whether nginx, pebble and dnsmasq are here for the edge's TLS tests; with
 * `REPOSITE_REQUIRE_DOCKER=1` (CI) a missing one throws, so the file fails instead of being skipped.
 */
export async function tlsToolsHere(): Promise<boolean> {
  const here = (await which("nginx", ["-v"])) && (await which("sh", ["-c", "command -v pebble"])) && dnsmasqAvailable();
  if (process.env.REPOSITE_REQUIRE_DOCKER === "1" && !here) {
    throw new Error("REPOSITE_REQUIRE_DOCKER=1 but nginx, pebble or dnsmasq is not installed (apt-get install nginx pebble dnsmasq)");
  }
  return here;
}

/** The certificate a TLS handshake with `servername` gets from 127.0.0.1:`port`, or the handshake's error. */
export function handshake(port: number, servername: string): Promise<PeerCertificate | Error> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, servername, rejectUnauthorized: false, timeout: 5_000 }, () => {
      const peer = socket.getPeerCertificate();
      socket.end();
      resolve(peer);
    });
    socket.on("error", (error) => resolve(error));
    socket.on("timeout", () => (socket.destroy(), resolve(new Error("no answer within 5 s"))));
  });
}

export interface EdgeProcess {
  child: ChildProcess;
  output(): string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** `reposite edge` in its own process with `env` (PORT, REPOSITE_DATA_DIR, …); resolves once it said it listens. */
export async function startEdgeProcess(env: Record<string, string>): Promise<EdgeProcess> {
  const child = spawn(process.execPath, [BIN, "edge"], { env: { ...process.env, HOST: "127.0.0.1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (const deadline = Date.now() + 20_000; !output.includes("Reposite edge listening"); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`reposite edge did not start:\n${output}`);
    }
  }
  return {
    child,
    output: () => output,
    kill: async () => (child.kill("SIGKILL"), await exited),
    stop: async () => (child.kill("SIGTERM"), await exited),
  };
}
