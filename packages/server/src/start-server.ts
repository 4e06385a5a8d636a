import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { CONTAINER_RUNTIME, createReposite, type ContainerRuntime, type Reposite } from "@reposite/core";
import { detectDockerRuntime } from "@reposite/provider-docker";
import { toNodeHandler } from "h3";
import { createApp } from "./app.js";
import { createAppProxy, listenForUpgrades } from "./app-proxy/index.js";
import { settingsFromEnv, type ServerSettings } from "./config-from-env.js";
import { siteNodeHandler } from "./site-runtime/site-runtime.js";
import { terminalSockets } from "./terminal/terminal-socket.js";

export interface RunningServer {
  /** Where the server answers, for example `http://127.0.0.1:3000`. */
  url: string;
  reposite: Reposite;
  /** Whether and where apps are hosted, as the start-up output says it. */
  hosting: string;
  /** Stops accepting connections, lets requests under way finish, then lets go of storage. */
  close(): Promise<void>;
}

/**
 * Starts the reference server. Settings come from the environment unless given; pass a
 * composed `reposite` to serve an embedder's own composition. A busy port rejects with an error
 * that names it: a server that moved to another port would print addresses nobody answers.
 */
export async function startServer(
  options: { settings?: ServerSettings; reposite?: Reposite } = {},
): Promise<RunningServer> {
  const settings = options.settings ?? settingsFromEnv();
  const { port, hostname } = settings.listen;
  const found = options.reposite ? null : await findContainerRuntime(settings);
  const reposite = options.reposite ?? createReposite({ ...settings.reposite, ...(found?.runtime ? { containerRuntime: found.runtime } : {}) });
  const app = createApp(reposite, { trustProxy: settings.trustProxy ?? false, discourse: settings.discourse ?? null });
  // Before h3: a site's /app/ goes to its running app (HTTP and WebSocket), published pages already
  // in memory are answered from precomputed bytes; everything else goes through the app.
  const appProxy = createAppProxy(reposite, { trustProxy: settings.trustProxy ?? false });
  const server = createServer(appProxy.listener(siteNodeHandler(reposite, toNodeHandler(app))));
  const terminals = terminalSockets(reposite);
  listenForUpgrades(server, appProxy, [terminals.upgrade]);
  const shutdown = gracefulShutdown(server);
  let hosting: string;
  try {
    hosting = await recoverApps(reposite, found?.reason);
    await listen(server, port, hostname);
  } catch (error) {
    // Only an embedder's own composition outlives a failed start.
    if (!options.reposite) await reposite.close();
    throw error;
  }
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${actualPort}`,
    reposite,
    hosting,
    close: () =>
      (closing ??= (async () => {
        await shutdown();
        appProxy.close();
        terminals.close();
        await reposite.close();
      })()),
  };
}

/**
 * The runtime apps are hosted on: the one the settings give, else Docker when `hosting` is
 * `detect` and its Engine answers. `reason` says why there is none.
 */
async function findContainerRuntime(settings: ServerSettings): Promise<{ runtime?: ContainerRuntime; reason?: string }> {
  if (settings.reposite.containerRuntime) return { runtime: settings.reposite.containerRuntime };
  if (settings.hosting === "off") return { reason: "turned off (REPOSITE_HOSTING=off)" };
  if (settings.hosting !== "detect") return { reason: "no container runtime given" };
  const runtime = await detectDockerRuntime();
  const where = process.env.DOCKER_HOST || "/var/run/docker.sock";
  return runtime ? { runtime } : { reason: `no Docker Engine answered at ${where}; saas sites and /app/ are unavailable` };
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
    return `${runtime.name} (${found.join(", ")})`;
  } catch (error) {
    // The engine answered at detection but not now: the server still serves sites and the API.
    console.error("[reposite] finding hosted apps again failed:", error);
    return `${runtime.name} (finding apps again failed: ${(error as Error).message})`;
  }
}

function listen(server: Server, port: number, hostname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        reject(new Error(`Port ${port} on ${hostname} is already in use. Stop what holds it, or set PORT to another port (PORT=0 picks a free one).`));
      } else if (error.code === "EACCES") {
        reject(new Error(`Listening on port ${port} of ${hostname} is not allowed for this user (ports below 1024 usually need privileges). Set PORT to another port.`));
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
 * connections at once, and each busy one as soon as its answer is sent.
 */
function gracefulShutdown(server: Server): () => Promise<void> {
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
  return () =>
    (closed ??= new Promise<void>((resolve) => {
      stopping = true;
      server.close(() => resolve());
      for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
    }));
}
