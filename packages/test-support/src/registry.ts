import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Debian's `docker-registry` (distribution 2.8). */
export const REGISTRY_BIN = "/usr/bin/docker-registry";

export interface TestRegistry {
  /** `127.0.0.1:<port>`: the Engine pushes to loopback registries without TLS. */
  address: string;
  /** `http://127.0.0.1:<port>` for its HTTP API. */
  url: string;
  /** Whether the registry holds `repository@digest`. */
  has(repository: string, digest: string): Promise<boolean>;
  /** Stops it and removes its storage. */
  stop(): Promise<void>;
}

/** A bcrypt hash for the registry's htpasswd file (the only kind it takes), from the C library's crypt through perl. */
async function bcrypt(password: string): Promise<string> {
  const alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const salt = Array.from(randomBytes(22), (byte) => alphabet[byte % 64]).join("");
  const { stdout } = await run("perl", ["-e", "print crypt($ARGV[0], $ARGV[1])", password, `$2b$10$${salt}`]);
  if (!stdout.startsWith("$2b$")) throw new Error("[test-support] [registry] this C library's crypt makes no bcrypt hashes");
  return stdout;
}

/**
 * A throwaway image registry on a free loopback port with temporary storage and deletes allowed:
 * start once per test file, stop after. With `credentials` it asks for them (htpasswd, basic
 * auth). Installs Debian's `docker-registry` when missing (as root, under the machine's npm lock,
 * as CI does).
 */
export async function startRegistry(options: { credentials?: { username: string; password: string } } = {}): Promise<TestRegistry> {
  if (!existsSync(REGISTRY_BIN)) {
    await run("flock", ["/tmp/reposite-npm.lock", "apt-get", "install", "-y", "-qq", "--no-install-recommends", "docker-registry"], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  }
  const dir = await mkdtemp(join(tmpdir(), "reposite-registry-"));
  const port = await freePort();
  const config = [
    "version: 0.1",
    "log: { level: error }",
    `storage: { filesystem: { rootdirectory: ${join(dir, "data")} }, delete: { enabled: true } }`,
    `http: { addr: "127.0.0.1:${port}" }`,
    "",
  ].join("\n");
  const credentials = options.credentials;
  if (credentials) await writeFile(join(dir, "htpasswd"), `${credentials.username}:${await bcrypt(credentials.password)}\n`);
  await writeFile(join(dir, "config.yml"), credentials ? `${config}auth: { htpasswd: { realm: reposite-test, path: ${join(dir, "htpasswd")} } }\n` : config);
  const authorization: Record<string, string> = credentials ? { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}` } : {};
  const child: ChildProcess = spawn(REGISTRY_BIN, ["serve", join(dir, "config.yml")], { stdio: ["ignore", "ignore", "pipe"] });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await fetch(`${url}/v2/`, { headers: authorization }).catch(() => null);
    if (answer?.ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
      throw new Error(`[test-support] [registry] docker-registry did not answer on ${url}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    address: `127.0.0.1:${port}`,
    url,
    async has(repository, digest) {
      const answer = await fetch(`${url}/v2/${repository}/manifests/${digest}`, {
        method: "HEAD",
        headers: { ...authorization, accept: "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json" },
      });
      return answer.ok;
    },
    async stop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
