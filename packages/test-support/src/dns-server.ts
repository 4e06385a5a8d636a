import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Resolver } from "node:dns/promises";
import { freePort } from "./free-port.js";

/** Records a loopback DNS server answers; every other name is NXDOMAIN (or NODATA for another type). */
export interface DnsRecords {
  /** Name -> IPv4 addresses (A). */
  a?: Record<string, string[]>;
  /** Name -> IPv6 addresses (AAAA). */
  aaaa?: Record<string, string[]>;
  /** Name -> target (CNAME). */
  cname?: Record<string, string>;
  /** Name -> TXT records (each one string, no commas). */
  txt?: Record<string, string[]>;
}

export interface DnsServer {
  /** `127.0.0.1:<port>`: what a resolver's `setServers` (or Reposite's `dns.servers`) takes. */
  readonly address: string;
  readonly port: number;
  /** Answers these records from now on (the server restarts on the same port). */
  setRecords(records: DnsRecords): Promise<void>;
  close(): Promise<void>;
}

const DNSMASQ = "/usr/sbin/dnsmasq";
/** Asked until it answers, so a started server is ready. */
const READY_NAME = "dns-ready.reposite.test";

/**
 * Whether the DNS tests run: Debian's `dnsmasq` is installed (package `dnsmasq-base` or `dnsmasq`).
 * CI (`REPOSITE_REQUIRE_DOCKER=1`, set by `.ci/run`, which installs dnsmasq with everything else)
 * always runs them, so a missing dnsmasq fails there instead of skipping.
 */
export function dnsmasqAvailable(): boolean {
  if (process.env.REPOSITE_REQUIRE_DOCKER === "1") return true;
  return spawnSync(DNSMASQ, ["--version"], { stdio: "ignore" }).status === 0;
}

function argsFor(port: number, records: DnsRecords): string[] {
  const args = [
    "--no-daemon",
    `--port=${port}`,
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    "--no-resolv",
    "--no-hosts",
    "--conf-file=/dev/null",
    "--pid-file=",
    // Every name is answered from the records below: unknown names NXDOMAIN, not REFUSED.
    "--local=/#/",
    "--local-ttl=0",
    `--host-record=${READY_NAME},127.0.0.1`,
  ];
  const names = new Set([...Object.keys(records.a ?? {}), ...Object.keys(records.aaaa ?? {})]);
  for (const name of names) {
    const v4 = records.a?.[name] ?? [];
    const v6 = records.aaaa?.[name] ?? [];
    for (let i = 0; i < Math.max(v4.length, v6.length); i++) {
      args.push(`--host-record=${[name, v4[i], v6[i]].filter(Boolean).join(",")}`);
    }
  }
  for (const [name, target] of Object.entries(records.cname ?? {})) args.push(`--cname=${name},${target}`);
  for (const [name, texts] of Object.entries(records.txt ?? {})) {
    for (const text of texts) {
      if (text.includes(",")) throw new Error(`TXT records of the test DNS server take no commas: ${text}`);
      args.push(`--txt-record=${name},${text}`);
    }
  }
  return args;
}

async function answers(port: number): Promise<boolean> {
  const resolver = new Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  try {
    return (await resolver.resolve4(READY_NAME)).includes("127.0.0.1");
  } catch {
    return false;
  }
}

/** Starts dnsmasq; resolves once it answers, rejects when it exits first (a port taken). */
async function launch(port: number, records: DnsRecords): Promise<ChildProcess> {
  const child = spawn(DNSMASQ, argsFor(port, records), { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + 5_000;
  while (!(await answers(port))) {
    if (exited) throw new Error(`dnsmasq stopped: ${output.trim()}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`dnsmasq did not answer on 127.0.0.1:${port}: ${output.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return child;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/**
 * A real DNS server on loopback (Debian's dnsmasq, started as a child of this process) answering
 * `records`, for checking custom domains against DNS. Skip tests with `dnsmasqAvailable()` where it
 * is not installed.
 */
export async function startDnsServer(records: DnsRecords = {}): Promise<DnsServer> {
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, records);
    } catch (error) {
      if (attempt >= 4) throw error;
    }
  }
  let current: ChildProcess = child;
  const killAtExit = () => current.kill("SIGKILL");
  process.once("exit", killAtExit);
  return {
    address: `127.0.0.1:${port}`,
    port,
    async setRecords(next) {
      await stop(current);
      current = await launch(port, next);
    },
    async close() {
      process.off("exit", killAtExit);
      await stop(current);
    },
  };
}
