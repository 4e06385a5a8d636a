import { mkdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { dirname, resolve } from "node:path";
import { AppRoutes, CONTAINER_RUNTIME, createReposite, EdgeRouteTable, type AppRuntime, type CertificateService, type ContainerRuntime, type ImageBuilder, type Reposite } from "@reposite/core";
import { createDockerAppRuntime, createDockerImageBuilder, detectDockerRuntime } from "@reposite/provider-docker";
import { startAppFirewall } from "./app-firewall-report.js";
import { toNodeHandler } from "h3";
import { createApp } from "./app.js";
import { createAppProxy, listenForUpgrades } from "./app-proxy/index.js";
import { findNginx } from "./edge/find-nginx.js";
import { startNginxEdge, type NginxEdge } from "./edge/index.js";
import { containerNginx } from "./edge/nginx-container.js";
import { settingsFromEnv, type ServerSettings } from "./config-from-env.js";
import { takePortZero } from "./listening-port.js";
import { siteNodeHandler } from "./site-runtime/site-runtime.js";
import { startSwarmHosting } from "./swarm-runtime.js";
import { terminalSockets } from "./terminal/terminal-socket.js";
import { acmeChallengeRoute, createBuiltInAcme, createHttpsServer } from "./tls/index.js";

export interface RunningServer {
  /** Where the server answers, for example `http://127.0.0.1:3000`. */
  url: string;
  /** Where HTTPS answers when the server terminates TLS itself (built-in ACME), for example `https://0.0.0.0:443`. */
  httpsUrl?: string;
  /** Built-in ACME's certificates (served by SNI, ordered and renewed), when HTTPS is on. */
  certificates?: CertificateService;
  reposite: Reposite;
  /** Whether and where apps are hosted, as the start-up output says it. */
  hosting: string;
  /** With REPOSITE_EDGE=nginx: what runs in front, as the start-up output says it. */
  edge?: string;
  /**
   * Stops accepting connections, lets requests under way finish for most of the shutdown timeout
   * (`shutdownTimeoutMs`), closes whatever is still open (a stream an app holds, a stalled upload,
   * a WebSocket), then lets go of storage.
   */
  close(): Promise<void>;
}

/** SIGTERM to exit, when `shutdownTimeoutMs` (REPOSITE_SHUTDOWN_TIMEOUT_SECONDS) is not given. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** Requests under way get the shutdown timeout less this (at least half of it); the rest ends runs and flushes storage. */
const AFTER_DRAIN_MS = 3_000;

/**
 * Starts the reference server. Settings come from the environment unless given; pass a
 * composed `reposite` to serve an embedder's own composition. A busy port rejects with an error
 * that names it: a server that moved to another port would print addresses nobody answers.
 */
export async function startServer(
  options: { settings?: ServerSettings; reposite?: Reposite } = {},
): Promise<RunningServer> {
  const given = options.settings ?? settingsFromEnv();
  // REPOSITE_EDGE=nginx without nginx on this machine: said before anything else happens (a container's image is looked for at the edge's start).
  if (given.edge && given.edgeNginx?.kind !== "container") await findNginx("nginx");
  // The HTTP listener exists from the start: with PORT=0 it takes its port before anything is composed.
  // Behind the edge, nginx takes PORT: a probe finds a free one, and this server listens on loopback.
  const server = createServer();
  const probe = given.edge ? createServer() : server;
  const settings = await takePortZero(probe, given, () => listen(probe, 0, given.listen.hostname, "PORT"));
  if (probe !== server) await new Promise((resolve) => probe.close(resolve));
  const { port, hostname } = settings.listen;
  const edgeMode = settings.edge === "nginx";
  // nginx sets X-Forwarded-For/-Proto (from the visitor, or from a trusted proxy in front of it).
  const trustProxy = edgeMode || (settings.trustProxy ?? false);
  let found: Awaited<ReturnType<typeof findContainerRuntime>> | null;
  let reposite: Reposite;
  try {
    found = options.reposite ? null : await findContainerRuntime(settings);
    reposite =
      options.reposite ??
      createReposite({
        ...settings.reposite,
        ...(found?.runtime ? { containerRuntime: found.runtime } : {}),
        ...(found?.ports ? { appRuntime: found.ports.appRuntime, imageBuilder: found.ports.imageBuilder } : {}),
      });
  } catch (error) {
    server.close();
    throw error;
  }
  const app = createApp(reposite, { trustProxy, discourse: settings.discourse ?? null });
  // Before h3: a site's /app/ goes to its running app (HTTP and WebSocket), published pages already
  // in memory are answered from precomputed bytes; everything else goes through the app.
  const appProxy = createAppProxy(reposite, { trustProxy });
  const terminals = terminalSockets(reposite);
  const servers: { server: Server; shutdown: (drainMs: number) => Promise<void> }[] = [];
  let certificates: CertificateService | undefined;
  const shutdownMs = settings.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const drainMs = Math.max(shutdownMs - AFTER_DRAIN_MS, shutdownMs / 2);
  let edge: NginxEdge | undefined;
  let edgeTable: EdgeRouteTable | undefined;
  const stopServing = async () => {
    certificates?.close();
    // nginx and this process drain side by side, both within the shutdown bound.
    await Promise.all([edge?.close(), ...servers.map(({ shutdown }) => shutdown(drainMs))]);
    edgeTable?.close();
    appProxy.close();
    terminals.close();
  };
  let hosting: string;
  let httpsUrl: string | undefined;
  try {
    // With the nginx edge, nginx serves the certificates from files written as they change.
    certificates = settings.https ? await createBuiltInAcme(reposite, settings.https.acme, edgeMode ? (name) => edge?.certificateChanged(name) : undefined) : undefined;
    const sites = appProxy.listener(siteNodeHandler(reposite, toNodeHandler(app)));
    // Built-in ACME: the CA's HTTP-01 requests are answered before host routing sends a custom domain to its site.
    const handler = certificates ? acmeChallengeRoute(certificates.challenges, sites) : sites;
    const serve = (server: Server) => {
      listenForUpgrades(server, appProxy, [terminals.upgrade]);
      servers.push({ server, shutdown: gracefulShutdown(server) });
      return server;
    };
    server.on("request", handler);
    serve(server);
    const httpsServer = certificates && !edgeMode ? serve(createHttpsServer(certificates, handler)) : undefined;
    const httpsHostname = settings.https?.hostname ?? hostname;
    // Jobs this replica ran before a restart (a crash) end now, not after a minute without heartbeat.
    const ended = await reposite.jobs.resume();
    if (ended > 0) console.log(`[reposite] ${ended} job${ended === 1 ? "" : "s"} left running by this replica's last run ended aborted`);
    hosting = (await recoverApps(reposite, found?.reason)) + (found?.firewall ? `; ${found.firewall}` : "") + (found?.ports ? `; ${found.ports.note}` : "");
    // Custom domains route from memory: the table is filled before the first request.
    await reposite.domains.load();
    if (edgeMode) {
      // nginx in a container reaches this process only on a socket in a folder bind-mounted into it.
      const placement = settings.edgeNginx ?? { kind: "host" };
      const socket = placement.kind === "container" ? resolve(reposite.config.dataDir, "run", "node.sock") : null;
      if (socket) await listenOnSocket(server, socket);
      else await listen(server, 0, "127.0.0.1", "PORT");
      edgeTable = reposite.container.resolve(EdgeRouteTable);
      await edgeTable.load();
      edge = await startNginxEdge({
        dir: resolve(reposite.config.dataDir, "edge"),
        listen: { hostname, port },
        node: socket ? { socket } : { host: "127.0.0.1", port: portOf(server, 0) },
        ...(placement.kind === "container" && socket ? { runner: containerNginx({ image: placement.image, mounts: [dirname(socket)], labels: { ...settings.reposite.hosting?.labels } }) } : {}),
        trustProxy: settings.trustProxy ?? false,
        shutdownMs: drainMs,
        table: edgeTable,
        appRoutes: reposite.container.resolve(AppRoutes),
        reposite,
        memberGate: appProxy.memberGate,
        ...(certificates && settings.https ? { tls: { listen: { hostname: httpsHostname, port: settings.https.port }, certificates: { source: certificates, domains: reposite.domainTable } } } : {}),
      });
      if (certificates && settings.https) httpsUrl = `https://${hostPart(httpsHostname)}:${settings.https.port}`;
    }
    if (!server.listening) await listen(server, port, hostname, "PORT");
    if (httpsServer && settings.https) {
      await listen(httpsServer, settings.https.port, httpsHostname, "REPOSITE_HTTPS_PORT");
      httpsUrl = `https://${hostPart(httpsHostname)}:${portOf(httpsServer, settings.https.port)}`;
    }
    // Orders start once port 80's challenge route answers; stored certificates are served at once.
    await certificates?.start();
  } catch (error) {
    await stopServing();
    if (server.listening) server.close(); // taken early (PORT=0) and failed before it served
    // Only an embedder's own composition outlives a failed start.
    if (!options.reposite) await reposite.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostPart(hostname)}:${edge ? port : portOf(servers[0]!.server, port)}`,
    ...(edge ? { edge: edge.description } : {}),
    ...(httpsUrl ? { httpsUrl } : {}),
    ...(certificates ? { certificates } : {}),
    reposite,
    hosting,
    close: () =>
      (closing ??= (async () => {
        await stopServing();
        await reposite.close();
      })()),
  };
}

const hostPart = (hostname: string) => (hostname.includes(":") ? `[${hostname}]` : hostname);

function portOf(server: Server, fallback: number): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : fallback;
}

/**
 * The runtime apps are hosted on: the one the settings give, else Docker when `hosting` is
 * `detect` and its Engine answers. `reason` says why there is none.
 */
async function findContainerRuntime(
  settings: ServerSettings,
): Promise<{ runtime?: ContainerRuntime; ports?: HostingPorts; reason?: string; firewall?: string }> {
  if (settings.reposite.containerRuntime) return { runtime: settings.reposite.containerRuntime };
  if (settings.hosting === "off") return { reason: "turned off (REPOSITE_HOSTING=off)" };
  // REPOSITE_RUNTIME=swarm: services on Docker Swarm, rolled out by Swarm itself (provider-swarm).
  if (settings.runtime?.kind === "swarm") return { ports: await startSwarmHosting(settings.runtime.swarm) };
  if (settings.hosting !== "detect") return { reason: "no container runtime given" };
  // App volumes live as loop-mounted filesystems under the data dir (when the server may mount them).
  // Apps are kept from the host and each other by iptables rules (provider-docker's app-firewall.ts).
  const runtime = await detectDockerRuntime({
    volumesDir: resolve(settings.reposite.config?.dataDir ?? ".reposite", "volumes"),
    buildCacheIndex: resolve(settings.reposite.config?.dataDir ?? ".reposite", "build-cache.json"),
    appFirewall: { denyCidrs: settings.appDenyCidrs ?? [] },
    // Deploys start containers in idle holders of each app's network (provider-docker's network-holders.ts).
    ...(settings.networkHolderImage !== undefined ? { networkHolderImage: settings.networkHolderImage } : {}),
  });
  const where = process.env.DOCKER_HOST || "/var/run/docker.sock";
  // Once per start, in the background: deploys go on without holders until the image is there.
  void runtime?.pullNetworkHolderImage();
  if (!runtime) return { reason: `no Docker Engine answered at ${where}; saas sites and /app/ are unavailable` };
  // Core builds and runs apps through the two ports; both adapt this one runtime (holders, firewall, loop volumes, build cache).
  const imageBuilder = createDockerImageBuilder({ runtime });
  const appRuntime = createDockerAppRuntime({ runtime });
  const note = `through ImageBuilder ${imageBuilder.provider} and AppRuntime ${appRuntime.provider} (${appRuntime.capabilities.rollout} rollout)`;
  return { ports: { imageBuilder, appRuntime, note }, firewall: await startAppFirewall(runtime) };
}

/** The builder and runtime core hosts apps through (Docker's adapters, or Swarm's), and what the start-up line says of them. */
interface HostingPorts {
  imageBuilder: ImageBuilder;
  appRuntime: AppRuntime;
  note: string;
}

/**
 * Apps outlive the server: at start, running ones are routed to again, interrupted runs end
 * failed and queued runs go on (`HostingService.recover`). Answers what the start-up output says.
 */
async function recoverApps(reposite: Reposite, reason = "no container runtime"): Promise<string> {
  const runtime = reposite.hosting.available ? reposite.container.resolve<ContainerRuntime>(CONTAINER_RUNTIME) : null;
  if (!runtime) return `off: ${reason}`;
  try {
    const report = await reposite.hosting.recover();
    const found = [
      `${report.running} app${report.running === 1 ? "" : "s"} running`,
      ...(report.interrupted ? [`${report.interrupted} interrupted deploy${report.interrupted === 1 ? "" : "s"} marked failed`] : []),
      ...(report.queued ? [`${report.queued} queued deploy${report.queued === 1 ? "" : "s"} resumed`] : []),
    ];
    const disk = await runtime.diskLimits?.().catch(() => null);
    return `${runtime.name} (${found.join(", ")})${disk ? `; app disk ${disk.note}` : ""}`;
  } catch (error) {
    // The engine answered at detection but not now: the server still serves sites and the API.
    console.error("[reposite] finding hosted apps again failed:", error);
    return `${runtime.name} (finding apps again failed: ${(error as Error).message})`;
  }
}

/** Listens on a Unix socket (its folder made, a socket file left by a killed run taken away first). */
async function listenOnSocket(server: Server, socket: string): Promise<void> {
  await mkdir(dirname(socket), { recursive: true });
  await rm(socket, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function listen(server: Server, port: number, hostname: string, portVariable: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        reject(new Error(`Port ${port} on ${hostname} is already in use. Stop what holds it, or set ${portVariable} to another port (${portVariable}=0 picks a free one).`));
      } else if (error.code === "EACCES") {
        reject(new Error(`Listening on port ${port} of ${hostname} is not allowed for this user (ports below 1024 usually need privileges). Set ${portVariable} to another port.`));
      } else if (error.code === "EADDRNOTAVAIL") {
        reject(new Error(`${hostname} is not an address of this machine. Set HOST to one of its addresses, or 0.0.0.0 for every interface.`));
      } else {
        reject(error);
      }
    };
    server.once("error", failed);
    server.listen(port, hostname, () => {
      server.off("error", failed);
      resolve();
    });
  });
}

/**
 * Closing waits for requests under way (a job stream included) and drops idle keep-alive
 * connections and WebSockets at once, and each busy one as soon as its answer is sent. What is
 * still open after `drainMs` is closed: an app that holds a stream (or a half-open connection)
 * forever must not keep a stopping server alive.
 */
function gracefulShutdown(server: Server): (drainMs: number) => Promise<void> {
  const busy = new WeakSet<Socket>();
  const sockets = new Set<Socket>();
  let stopping = false;
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("request", (req, res) => {
    busy.add(req.socket);
    res.once("finish", () => {
      busy.delete(req.socket);
      if (stopping) req.socket.destroy();
    });
  });
  let closed: Promise<void> | undefined;
  return (drainMs) =>
    (closed ??= new Promise<void>((resolve) => {
      stopping = true;
      const force = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, drainMs);
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
    }));
}
