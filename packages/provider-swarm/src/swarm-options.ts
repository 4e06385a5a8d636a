/** Where images go so every node can pull them. */
export interface SwarmRegistry {
  /** `host:port` of the registry, for example `10.0.0.5:5000` (no scheme). */
  address: string;
  /** Credentials for pushes and for nodes' pulls; never logged. */
  username?: string;
  password?: string;
  /** `http` for a loopback registry (the Engine allows 127.0.0.0/8 without TLS); `https` otherwise by default. */
  scheme?: "http" | "https";
}

/** Health-check timing of every app's tasks (the health check runs inside the task, see health-probe.ts). */
export interface SwarmHealthTiming {
  intervalSeconds: number;
  timeoutSeconds: number;
  retries: number;
  /** Failures in this first while do not count: the app is starting. */
  startPeriodSeconds: number;
}

export interface SwarmOptions {
  /** The manager's Engine in `DOCKER_HOST`'s form; dockerode's default (`DOCKER_HOST`, then the socket) when absent. */
  dockerHost?: string;
  /** Where built images are pushed and deployed from by digest. Without one, images stay on the building engine (one node only). */
  registry?: SwarmRegistry | null;
  /**
   * How a service's name resolves on its overlay network: `dnsrr` (each task's address, in turn) or
   * `vip` (one virtual address balanced by IPVS). `dnsrr` by default: it needs no IPVS in the kernel.
   */
  endpointMode?: "dnsrr" | "vip";
  /**
   * A static busybox on every node (Debian's `busybox-static`), bind-mounted read-only into each
   * task as `/.reposite/busybox` to run the health check: the app's image needs no curl or shell.
   * `/bin/busybox` by default.
   */
  probeBinary?: string;
  /** The node apps with a volume are pinned to (a node id); the manager's own node by default. */
  volumeNode?: string;
  /**
   * The Engine of each node by node id or hostname, in `DOCKER_HOST`'s form: exec, terminal,
   * stats, disk figures and OOM facts are read there. The manager's own node uses `dockerHost`.
   */
  nodeEngines?: Record<string, string>;
  health?: Partial<SwarmHealthTiming>;
  /** How long a rollout may take before it counts as failed (5 minutes by default). */
  rolloutTimeoutMs?: number;
  /**
   * How the control plane and the edge reach an app (`address()`):
   * - `gateway` (the default): the running task's address on its node's `docker_gwbridge`, read
   *   from that node's Engine. The host reaches it without joining any network (the Node runtime's
   *   `/app/` proxy, an nginx on the host), but only on the task's own node, so apps are placed
   *   on the manager's node (a node joining later gets none); it changes with each task: core
   *   moves the route when a rollout reports the new task healthy.
   * - `network`: `<service name>:<port>` on the app's overlay network, for an edge attached to the
   *   apps' networks (in a container); reaches tasks on every node, and the name stays.
   */
  reach?: SwarmReach;
  /** Bytes of output kept per task (json-file log, two files of half each); 20 MB by default. */
  logBytes?: number;
}

export type SwarmReach = "gateway" | "network";

export const DEFAULT_HEALTH_TIMING: SwarmHealthTiming = { intervalSeconds: 2, timeoutSeconds: 3, retries: 3, startPeriodSeconds: 5 };

/**
 * The settings from the environment: `REPOSITE_REGISTRY` (`host:port`), `REPOSITE_REGISTRY_USERNAME`,
 * `REPOSITE_REGISTRY_PASSWORD`, `REPOSITE_SWARM_ENDPOINT_MODE` (`dnsrr` | `vip`),
 * `REPOSITE_SWARM_PROBE_BINARY`, `REPOSITE_SWARM_VOLUME_NODE`, `REPOSITE_SWARM_REACH` (`gateway` | `network`), `REPOSITE_SWARM_NODE_ENGINES`
 * (`node=tcp://10.0.0.6:2375,…`) and `DOCKER_HOST`.
 */
export function swarmOptionsFromEnv(env: Record<string, string | undefined>): SwarmOptions {
  const mode = env.REPOSITE_SWARM_ENDPOINT_MODE;
  if (mode && mode !== "dnsrr" && mode !== "vip") throw new Error(`[provider-swarm] REPOSITE_SWARM_ENDPOINT_MODE must be dnsrr or vip, not ${JSON.stringify(mode)}`);
  const reach = env.REPOSITE_SWARM_REACH;
  if (reach && reach !== "gateway" && reach !== "network") throw new Error(`[provider-swarm] REPOSITE_SWARM_REACH must be gateway or network, not ${JSON.stringify(reach)}`);
  const nodeEngines: Record<string, string> = {};
  for (const pair of (env.REPOSITE_SWARM_NODE_ENGINES ?? "").split(",").filter(Boolean)) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`[provider-swarm] REPOSITE_SWARM_NODE_ENGINES takes node=address pairs, not ${JSON.stringify(pair)}`);
    nodeEngines[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return {
    ...(env.DOCKER_HOST ? { dockerHost: env.DOCKER_HOST } : {}),
    registry: env.REPOSITE_REGISTRY
      ? {
          address: env.REPOSITE_REGISTRY.replace(/^https?:\/\//, "").replace(/\/$/, ""),
          ...(env.REPOSITE_REGISTRY.startsWith("http://") ? { scheme: "http" as const } : {}),
          ...(env.REPOSITE_REGISTRY_USERNAME ? { username: env.REPOSITE_REGISTRY_USERNAME } : {}),
          ...(env.REPOSITE_REGISTRY_PASSWORD ? { password: env.REPOSITE_REGISTRY_PASSWORD } : {}),
        }
      : null,
    ...(mode ? { endpointMode: mode as "dnsrr" | "vip" } : {}),
    ...(reach ? { reach: reach as SwarmReach } : {}),
    ...(env.REPOSITE_SWARM_PROBE_BINARY ? { probeBinary: env.REPOSITE_SWARM_PROBE_BINARY } : {}),
    ...(env.REPOSITE_SWARM_VOLUME_NODE ? { volumeNode: env.REPOSITE_SWARM_VOLUME_NODE } : {}),
    ...(Object.keys(nodeEngines).length ? { nodeEngines } : {}),
  };
}
