import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, closeSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { docker } from "./docker.js";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** One Engine of the throwaway swarm, in its own network namespace. */
export interface SwarmNode {
  /** `unix://…`: the Engine's socket (a file, so this machine reaches it from its own namespace). */
  dockerHost: string;
  nodeId: string;
  /** The node's address on the link between the two nodes (what Swarm advertises). */
  address: string;
  /**
   * A loopback port of this machine that reaches `host:port` as seen from inside the node: its own
   * loopback by default (where its Engine publishes ports), or an address only it reaches (a
   * task's on its docker_gwbridge).
   */
  reachPort(port: number, host?: string): Promise<number>;
  /**
   * Makes this machine's loopback `port` reach the same port on the node's loopback, where its
   * Engine publishes containers' ports: as though the node's Engine ran on this machine, which is
   * where a control plane on the manager's machine finds its edge container.
   */
  forwardPort(port: number): Promise<void>;
}

export interface TwoNodeSwarm {
  manager: SwarmNode;
  worker: SwarmNode;
  /**
   * Makes this machine's loopback `port` answer on `127.0.0.1:<port>` inside both nodes too: the
   * test registry then has one address everywhere, and Engines pull from loopback registries
   * without TLS.
   */
  shareLoopbackPort(port: number): Promise<void>;
  /** Copies an image of this machine's Engine to a node (`docker save | docker load`). */
  copyImage(reference: string, to: SwarmNode): Promise<void>;
  /** Stops both Engines and removes everything they made: namespaces, data roots, cgroups. */
  stop(): Promise<void>;
}

/** The link between the two namespaces: TEST-NET-1, never routed, and apart from Docker's own pools. */
const MANAGER_ADDRESS = "192.0.2.1";
const WORKER_ADDRESS = "192.0.2.2";

/**
 * A throwaway two-node swarm on this machine: two extra `dockerd`s (root only), each in a network
 * namespace of its own with its own data root, exec root, socket and cgroup parent, joined by a
 * veth pair, one the manager and one a worker. Two Engines in one namespace would clash on Swarm's
 * ports (7946, VXLAN's 4789) and on docker0 and docker_gwbridge. The machine's own Engine and
 * its swarm are never touched: joining that swarm (it advertises 127.0.0.1, unreachable from
 * another namespace) would also let every other test's services land on the extra node.
 * Needs `ip` (iproute2), `nsenter` and `socat`.
 */
export async function startTwoNodeSwarm(): Promise<TwoNodeSwarm> {
  for (const [tool, from] of [["ip", "iproute2"], ["nsenter", "util-linux"], ["socat", "socat"], ["dockerd", "docker.io"]]) {
    await run("sh", ["-c", 'command -v "$1"', "sh", tool!]).catch(() => {
      throw new Error(`[test-support] [second-node] ${tool} is missing: install Debian's ${from} (.ci/run does)`);
    });
  }
  const name = `rsw-${randomBytes(4).toString("hex")}`;
  const dir = await mkdtemp(join(tmpdir(), "reposite-nodes-"));
  const processes: ChildProcess[] = [];
  const namespaces: string[] = [];
  const stop = () => cleanUp(dir, name, namespaces, processes);
  try {
    const [managerNs, workerNs] = [`${name}-m`, `${name}-w`];
    for (const ns of [managerNs, workerNs]) {
      await run("ip", ["netns", "add", ns]);
      namespaces.push(ns);
      await run("ip", ["-n", ns, "link", "set", "lo", "up"]);
    }
    await run("ip", ["link", "add", `${name}m`, "netns", managerNs, "type", "veth", "peer", "name", `${name}w`, "netns", workerNs]);
    for (const [ns, link, address] of [[managerNs, `${name}m`, MANAGER_ADDRESS], [workerNs, `${name}w`, WORKER_ADDRESS]] as const) {
      await run("ip", ["-n", ns, "addr", "add", `${address}/24`, "dev", link]);
      await run("ip", ["-n", ns, "link", "set", link, "up"]);
    }
    const [managerHost, workerHost] = await Promise.all([
      startEngine(dir, `${name}-m`, managerNs, processes),
      startEngine(dir, `${name}-w`, workerNs, processes),
    ]);
    await docker(["swarm", "init", "--advertise-addr", MANAGER_ADDRESS, "--listen-addr", `${MANAGER_ADDRESS}:2377`], { host: managerHost, timeoutMs: 60_000 });
    const token = (await docker(["swarm", "join-token", "-q", "worker"], { host: managerHost })).stdout.trim();
    await docker(["swarm", "join", "--token", token, "--advertise-addr", WORKER_ADDRESS, "--listen-addr", `${WORKER_ADDRESS}:2377`, `${MANAGER_ADDRESS}:2377`], { host: workerHost, timeoutMs: 60_000 });
    const nodeIdOf = async (host: string) => (await docker(["info", "--format", "{{.Swarm.NodeID}}"], { host })).stdout.trim();
    const [managerId, workerId] = await Promise.all([nodeIdOf(managerHost), nodeIdOf(workerHost)]);
    await waitFor(`the worker ${workerId} to be ready`, async () => (await docker(["node", "inspect", workerId, "--format", "{{.Status.State}}"], { host: managerHost })).stdout.trim() === "ready");

    /** socat from a TCP port in one namespace to a TCP port in another, through a Unix socket (files cross namespaces). */
    const bridge = async (from: string | null, listenPort: number, to: string | null, targetPort: number, targetHost = "127.0.0.1") => {
      const socket = join(dir, `bridge-${randomBytes(4).toString("hex")}.sock`);
      processes.push(inNamespace(to, ["socat", `UNIX-LISTEN:${socket},fork`, `TCP:${targetHost}:${targetPort}`]));
      await waitFor(`the socket ${socket}`, async () => (await readdir(dir)).includes(socket.slice(dir.length + 1)));
      processes.push(inNamespace(from, ["socat", `TCP-LISTEN:${listenPort},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${socket}`]));
    };
    const node = (dockerHost: string, nodeId: string, address: string, ns: string): SwarmNode => ({
      dockerHost,
      nodeId,
      address,
      async reachPort(port, host) {
        const local = await freePort();
        await bridge(null, local, ns, port, host);
        await waitFor(`127.0.0.1:${local}`, () => listening(local));
        return local;
      },
      async forwardPort(port) {
        await bridge(null, port, ns, port);
        await waitFor(`127.0.0.1:${port}`, () => listening(port));
      },
    });
    return {
      manager: node(managerHost, managerId, MANAGER_ADDRESS, managerNs),
      worker: node(workerHost, workerId, WORKER_ADDRESS, workerNs),
      async shareLoopbackPort(port) {
        for (const ns of [managerNs, workerNs]) await bridge(ns, port, null, port);
        for (const ns of [managerNs, workerNs]) await waitFor(`127.0.0.1:${port} in ${ns}`, () => run("nsenter", [`--net=/run/netns/${ns}`, "socat", "-u", "OPEN:/dev/null", `TCP:127.0.0.1:${port}`]).then(() => true, () => false));
      },
      async copyImage(reference, to) {
        await run("sh", ["-c", 'docker save "$1" | docker -H "$2" load -q', "sh", reference, to.dockerHost], { maxBuffer: 1 << 20 });
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs a command in a namespace (null: this machine's), joining only its network: `ip netns exec` would hide the cgroup mounts dockerd needs. */
function inNamespace(ns: string | null, command: string[], output: "ignore" | number = "ignore"): ChildProcess {
  const [program, args] = ns ? ["nsenter", [`--net=/run/netns/${ns}`, ...command]] : [command[0]!, command.slice(1)];
  const child = spawn(program, args, { stdio: ["ignore", output, output] });
  child.on("error", () => undefined);
  return child;
}

/** Starts a dockerd of its own in `ns` and answers its `DOCKER_HOST`. */
async function startEngine(dir: string, name: string, ns: string, processes: ChildProcess[]): Promise<string> {
  const root = join(dir, name);
  await mkdir(root, { recursive: true });
  const host = `unix://${join(root, "docker.sock")}`;
  const log = openSync(join(root, "dockerd.log"), "a");
  const engine = inNamespace(
    ns,
    ["dockerd", "--data-root", join(root, "data"), "--exec-root", join(root, "exec"), "--pidfile", join(root, "docker.pid"), "-H", host, "--cgroup-parent", `/${name}`],
    log,
  );
  closeSync(log);
  processes.push(engine);
  try {
    await waitFor(`dockerd ${name}`, async () => {
      if (engine.exitCode !== null) throw new Error(`exited ${engine.exitCode}`);
      return docker(["info", "--format", "{{.ID}}"], { host, timeoutMs: 5_000 }).then(() => true, () => false);
    }, 60_000);
  } catch (error) {
    const tail = await readFile(join(root, "dockerd.log"), "utf8").then((text) => text.split("\n").slice(-8).join("\n"), () => "");
    throw new Error(`[test-support] [second-node] ${(error as Error).message}\n${tail}`);
  }
  return host;
}

async function cleanUp(dir: string, name: string, namespaces: string[], processes: ChildProcess[]): Promise<void> {
  // The Engines first (they stop their containers), then the bridges.
  const engines = processes.filter((child) => child.spawnargs.includes("dockerd"));
  for (const child of [...engines, ...processes.filter((child) => !engines.includes(child))]) await ended(child, 20_000);
  // What a killed Engine left behind: its containerd and shims, found by our unique directory.
  for (const pid of await processesUsing(dir)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone already */
    }
  }
  const mounts = (await readFile("/proc/self/mountinfo", "utf8")).split("\n").map((line) => line.split(" ")[4] ?? "").filter((point) => point.startsWith(dir));
  for (const point of mounts.sort().reverse()) await run("umount", ["-l", point]).catch(() => undefined);
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  for (const ns of namespaces) await run("ip", ["netns", "del", ns]).catch(() => undefined);
  for (const controller of await readdir("/sys/fs/cgroup").catch(() => [] as string[])) {
    for (const suffix of ["-m", "-w"]) await rmdir(join("/sys/fs/cgroup", controller, `${name}${suffix}`)).catch(() => undefined);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. */
async function ended(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exit;
  clearTimeout(timer);
}

async function processesUsing(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (commandLine.includes(dir)) found.push(Number(entry));
  }
  return found;
}

function listening(port: number): Promise<boolean> {
  return run("socat", ["-u", "OPEN:/dev/null", `TCP:127.0.0.1:${port}`]).then(() => true, () => false);
}

async function waitFor(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`[test-support] [second-node] timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
