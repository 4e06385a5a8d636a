import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

export interface PebbleOptions {
  /** The port pebble connects to for HTTP-01 (`httpPort`): the HTTP port of the server under test. */
  httpPort: number;
  /** Lifetime of the certificates it issues, in seconds. Default 90 days, like Let's Encrypt's. */
  certificateValiditySeconds?: number;
}

export interface Pebble {
  /** The ACME directory, `https://127.0.0.1:<port>/dir`. */
  directoryUrl: string;
  /** The PEM file of pebble's own TLS certificate (the directory's HTTPS): REPOSITE_ACME_CA_FILE. */
  caFile: string;
  caPem: string;
  /** The root certificate pebble issues under (made anew each start), from its management endpoint. */
  root(): Promise<string>;
  /** Its intermediate certificate (the issuer of every certificate it signs). */
  intermediate(): Promise<string>;
  /** Stops pebble and its DNS server and removes their files. */
  close(): Promise<void>;
}

/**
 * Debian's `pebble` (Let's Encrypt's ACME test server) on loopback, with its own TLS certificate
 * (made with `openssl`) and `pebble-challtestsrv` as its DNS server, answering 127.0.0.1 for
 * every name (and no IPv6), so HTTP-01 validation reaches the server under test on `httpPort`.
 * No validation sleeps, no rejected nonces: orders take well under a second.
 */
export async function startPebble(options: PebbleOptions): Promise<Pebble> {
  const dir = await mkdtemp(join(tmpdir(), "reposite-pebble-"));
  const children: Launched[] = [];
  const close = async () => {
    await Promise.all(children.map(stop));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const caFile = join(dir, "pebble-tls.pem");
    const keyFile = join(dir, "pebble-tls.key");
    await run("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-keyout", keyFile, "-out", caFile, "-days", "7", "-subj", "/CN=pebble on loopback",
      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ]);
    const [dnsPort, dnsManagementPort, acmePort, managementPort, tlsPort] = await distinctFreePorts(5);
    const dns = launch("pebble-challtestsrv", [
        "-dns01", `127.0.0.1:${dnsPort}`,
        "-management", `127.0.0.1:${dnsManagementPort}`,
        "-http01", "", "-https01", "", "-tlsalpn01", "",
        "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
      ]);
    children.push(dns);
    // Its management API answers 404 on `/`: any answer means it is up.
    await waitFor(() => get(`http://127.0.0.1:${dnsManagementPort}/`, undefined, true), dns);
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: caFile,
        privateKey: keyFile,
        httpPort: options.httpPort,
        tlsPort,
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
        certificateValidityPeriod: options.certificateValiditySeconds ?? 90 * 24 * 60 * 60,
      },
    };
    const configFile = join(dir, "pebble-config.json");
    await writeFile(configFile, JSON.stringify(config));
    const ca = launch("pebble", ["-config", configFile, "-dnsserver", `127.0.0.1:${dnsPort}`], {
      PEBBLE_VA_NOSLEEP: "1",
      PEBBLE_WFE_NONCEREJECT: "0",
    });
    children.push(ca);
    const caPem = await readFile(caFile, "utf8");
    const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
    await waitFor(() => get(directoryUrl, caPem), ca);
    const management = (path: string) => get(`https://127.0.0.1:${managementPort}${path}`, caPem);
    return { directoryUrl, caFile, caPem, root: () => management("/roots/0"), intermediate: () => management("/intermediates/0"), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Several free ports, never the same one twice. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** A child process with what it said lately, and why it is gone if it is. */
interface Launched extends ChildProcess {
  command: string;
  output: string;
  failed?: string;
  stopping?: boolean;
}

function launch(command: string, args: string[], env: Record<string, string> = {}): Launched {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }) as Launched;
  child.command = command;
  child.output = "";
  const keep = (chunk: Buffer) => (child.output = (child.output + chunk.toString()).slice(-4000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.on("error", (error: NodeJS.ErrnoException) => {
    child.failed = error.code === "ENOENT" ? `${command} is not installed: install Debian's pebble package (apt-get install pebble)` : error.message;
  });
  child.once("exit", (code, signal) => {
    child.failed ??= `${command} exited (${code ?? signal}): ${child.output}`;
    if (!child.stopping) console.error(`[test-support] ${child.failed}`);
  });
  return child;
}

function stop(child: Launched): Promise<void> {
  child.stopping = true;
  // Never started (not installed), or already gone.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** A GET's body; rejects on a status other than 2xx. Pebble's own HTTPS is trusted through `caPem`. */
function get(url: string, caPem?: string, anyStatus = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith("https:") ? httpsRequest(url, { ca: caPem }) : httpRequest(url);
    request.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => (anyStatus || (res.statusCode ?? 0) < 300 ? resolve(body) : reject(new Error(`${url} answered ${res.statusCode}: ${body}`))));
    });
    request.on("error", reject);
    request.setTimeout(5000, () => request.destroy(new Error(`${url} did not answer`)));
    request.end();
  });
}

/** Until `probe` succeeds; fails at once, saying why, when the process is gone. */
async function waitFor(probe: () => Promise<unknown>, child: Launched, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.failed) throw new Error(`${child.command} did not start: ${child.failed}`);
    try {
      await probe();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${child.command} did not start on loopback within ${timeoutMs / 1000} s: ${(error as Error).message}\n${child.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
