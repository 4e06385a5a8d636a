import { docker } from "./docker.js";

/**
 * Makes this Engine a single-node swarm manager (`docker swarm init --advertise-addr 127.0.0.1`)
 * unless it is part of a swarm already, and answers its node id. Never leaves the swarm: other test
 * files share it, and CI leaves it once at the end (.ci/run).
 */
export async function ensureSwarm(): Promise<{ nodeId: string }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const state = await swarmState();
    if (state.state === "active" && state.nodeId) return { nodeId: state.nodeId };
    // Two test files may init at once: the loser's "already part of a swarm" is fine.
    await docker(["swarm", "init", "--advertise-addr", "127.0.0.1"], { timeoutMs: 60_000 }).catch((error: unknown) => {
      if (!/already part of a swarm/i.test(String(error))) throw error;
    });
  }
  throw new Error(`[test-support] [swarm] the Engine did not become a swarm manager: ${JSON.stringify(await swarmState())}`);
}

async function swarmState(): Promise<{ state: string; nodeId: string }> {
  const { stdout } = await docker(["info", "--format", "{{.Swarm.LocalNodeState}} {{.Swarm.NodeID}}"]);
  const [state = "", nodeId = ""] = stdout.trim().split(" ");
  return { state, nodeId };
}

/** A place on a network to make requests from (the edge's seat), reached through 127.0.0.1. */
export interface NetworkVantage {
  get(url: string, timeoutMs?: number): Promise<{ status: number; body: string } | { error: string }>;
  close(): Promise<void>;
}

/** The vantage's own server: fetches `?url=` from inside the network and answers what came back. */
const VANTAGE_SERVER = `
const http = require("node:http");
http.createServer((req, res) => {
  const asked = new URL(req.url, "http://vantage");
  const timeout = Number(asked.searchParams.get("timeout") || 2000);
  const reply = (body) => res.end(JSON.stringify(body));
  const target = asked.searchParams.get("url");
  if (!target) return reply({ ready: true });
  let request;
  try {
    request = http.get(target, { timeout, agent: false }, (answer) => {
    const chunks = [];
    answer.on("data", (chunk) => chunks.push(chunk));
    answer.on("end", () => reply({ status: answer.statusCode, body: Buffer.concat(chunks).toString() }));
    answer.on("error", (error) => reply({ error: String(error.code || error.message) }));
    });
  } catch (error) {
    return reply({ error: String(error.message) });
  }
  request.on("timeout", () => request.destroy(new Error("timeout")));
  request.on("error", (error) => reply({ error: String(error.code || error.message) }));
}).listen(9000);
`;

/** Another Engine to put the vantage on (a second node's, second-node.ts), and how this machine reaches a port it publishes. */
export interface VantageEngine {
  dockerHost: string;
  reachPort(port: number): Promise<number>;
}

/**
 * A small container attached to `network` (an attachable overlay) whose requests come from inside
 * it: what the edge sees when it joins an app's network. It publishes its own port on 127.0.0.1,
 * so tests keep their traffic on loopback. On this machine's Engine, or on `engine`.
 */
export async function networkVantage(network: string, options: { name: string; image: string; labels: Record<string, string>; engine?: VantageEngine }): Promise<NetworkVantage> {
  const labels = Object.entries(options.labels).flatMap(([key, value]) => ["--label", `${key}=${value}`]);
  const host = options.engine?.dockerHost;
  await docker(["run", "-d", "--name", options.name, ...labels, "--network", network, "-p", "127.0.0.1::9000", "--memory", "64m", options.image, "node", "-e", VANTAGE_SERVER], { timeoutMs: 60_000, host });
  const { stdout } = await docker(["port", options.name, "9000/tcp"], { host });
  const published = /127\.0\.0\.1:(\d+)/.exec(stdout)?.[1];
  if (!published) throw new Error(`[test-support] [swarm] the vantage ${options.name} published no port: ${stdout}`);
  const hostPort = options.engine ? await options.engine.reachPort(Number(published)) : published;
  const base = `http://127.0.0.1:${hostPort}/`;
  // Up once its own server answers.
  for (let tries = 0; ; tries++) {
    if (await fetch(base).then((answer) => answer.ok, () => false)) break;
    if (tries > 100) throw new Error(`[test-support] [swarm] the vantage ${options.name} did not answer`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    async get(url, timeoutMs = 2_000) {
      try {
        const answer = await fetch(`${base}?url=${encodeURIComponent(url)}&timeout=${timeoutMs}`, { signal: AbortSignal.timeout(timeoutMs + 3_000) });
        return (await answer.json()) as { status: number; body: string } | { error: string };
      } catch (error) {
        return { error: `vantage: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    async close() {
      await docker(["rm", "-f", options.name], { host }).catch(() => undefined);
    },
  };
}
