import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { request, type RequestOptions } from "node:https";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PeerCertificate, TLSSocket } from "node:tls";
import { freePort } from "./free-port.js";

/** Debian's Caddy 2.6 (`apt-get install caddy`); `CADDY_PATH` names another binary. */
export const DEFAULT_CADDY_PATH = "caddy";

export interface CaddyOptions {
  /** The ask endpoint Caddy checks before it issues a certificate, e.g. `http://127.0.0.1:3000/tls/ask`. */
  askUrl: string;
  /** What Caddy proxies every HTTPS request to, e.g. `127.0.0.1:3000`. */
  upstream: string;
  /** The caddy binary; default `CADDY_PATH` or `caddy` on the PATH. */
  binary?: string;
  /** How long Caddy may take to listen and make its CA; default 15 s. */
  startTimeoutMs?: number;
}

/** What the test Caddyfile is made from: the documented one's shape, with Caddy's own CA and loopback ports. */
export interface TestCaddyfileOptions {
  askUrl: string;
  upstream: string;
  httpPort: number;
  httpsPort: number;
  /** Where certificates and the internal CA are kept. */
  storageDir: string;
}

/** An answer through Caddy, with the certificate it presented. */
export interface CaddyAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  certificate: PeerCertificate;
}

export interface RunningCaddy {
  httpsPort: number;
  httpPort: number;
  /** The Caddyfile it runs. */
  caddyfile: string;
  /** PEM of Caddy's internal root CA (`pki/authorities/local/root.crt` in its storage): what clients trust. */
  rootCertificate: string;
  /** Caddy's output so far (JSON lines): failure messages name why. */
  log(): string;
  /**
   * A GET to `https://<name><path>` through Caddy on loopback: SNI and Host are `name`, the internal
   * root is trusted, no connection is reused. Rejects when the handshake fails (no certificate).
   */
  get(name: string, path?: string, headers?: Record<string, string>): Promise<CaddyAnswer>;
  /** Stops Caddy and removes its files. */
  close(): Promise<void>;
}

/**
 * The documented Caddyfile (docs/deploy/Caddyfile) as a test runs it: certificates from Caddy's
 * internal CA instead of Let's Encrypt, on-demand behind the same ask endpoint, everything on
 * loopback ports, no admin endpoint, storage in a temporary folder, nothing installed in trust stores.
 */
export function testCaddyfile(options: TestCaddyfileOptions): string {
  return `{
	admin off
	default_bind 127.0.0.1
	http_port ${options.httpPort}
	https_port ${options.httpsPort}
	storage file_system ${options.storageDir}
	local_certs
	skip_install_trust
	servers {
		protocols h1 h2
	}
	on_demand_tls {
		ask ${options.askUrl}
	}
}

https:// {
	tls internal {
		on_demand
	}
	reverse_proxy ${options.upstream}
}
`;
}

/**
 * Starts Caddy on loopback with `testCaddyfile`: resolves once it listens on its HTTPS port and its
 * internal CA exists; rejects with Caddy's output if it exits or does not get there in time.
 */
export async function startCaddy(options: CaddyOptions): Promise<RunningCaddy> {
  const dir = await mkdtemp(join(tmpdir(), "reposite-caddy-"));
  const storageDir = join(dir, "storage");
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const caddyfile = testCaddyfile({ askUrl: options.askUrl, upstream: options.upstream, httpPort, httpsPort, storageDir });
  const configPath = join(dir, "Caddyfile");
  await writeFile(configPath, caddyfile);

  const binary = options.binary ?? (process.env.CADDY_PATH || DEFAULT_CADDY_PATH);
  // Caddy keeps an autosaved config and other state under HOME/XDG folders: all of them in the temporary folder.
  const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") };
  const child = spawn(binary, ["run", "--config", configPath, "--adapter", "caddyfile"], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<string>((resolve) => {
    child.once("error", (error) => resolve(`could not start ${binary} (${error.message}); install Debian's caddy or set CADDY_PATH`));
    child.once("exit", (code, signal) => resolve(`exited (${signal ?? code})`));
  });

  const rootPath = join(storageDir, "pki", "authorities", "local", "root.crt");
  const ready = (async () => {
    const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      if ((await listening(httpsPort)) && (await exists(rootPath))) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("timed out");
  })();
  const failed = await Promise.race([ready.then(() => null, (error: Error) => error.message), exited]);
  if (failed !== null) {
    await stop(child);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`[test-support] caddy did not start: ${failed}\n${output}`);
  }
  const rootCertificate = await readFile(rootPath, "utf8");

  return {
    httpsPort,
    httpPort,
    caddyfile,
    rootCertificate,
    log: () => output,
    get: (name, path = "/", headers = {}) =>
      httpsGet({ host: "127.0.0.1", port: httpsPort, servername: name, path, headers: { host: name, ...headers }, ca: rootCertificate, agent: false }),
    async close() {
      await stop(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function httpsGet(options: RequestOptions): Promise<CaddyAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ ...options, method: "GET", timeout: 10_000 }, (res) => {
      // Read before the socket closes: the peer certificate belongs to the connection.
      const certificate = (res.socket as TLSSocket).getPeerCertificate();
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, certificate }));
    });
    req.on("timeout", () => req.destroy(new Error("no answer through caddy within 10 s")));
    req.on("error", reject);
    req.end();
  });
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** SIGTERM, then SIGKILL if Caddy has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await gone;
  clearTimeout(timer);
}
