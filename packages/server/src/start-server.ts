import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { createReposite, type Reposite } from "@reposite/core";
import { toNodeHandler } from "h3";
import { createApp } from "./app.js";
import { createAppProxy, listenForUpgrades } from "./app-proxy/index.js";
import { settingsFromEnv, type ServerSettings } from "./config-from-env.js";
import { siteNodeHandler } from "./site-runtime/site-runtime.js";

export interface RunningServer {
  /** Where the server answers, for example `http://127.0.0.1:3000`. */
  url: string;
  reposite: Reposite;
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
  const reposite = options.reposite ?? createReposite(settings.reposite);
  const app = createApp(reposite, { trustProxy: settings.trustProxy ?? false, discourse: settings.discourse ?? null });
  // Before h3: a site's /app/ goes to its running app (HTTP and WebSocket), published pages already
  // in memory are answered from precomputed bytes; everything else goes through the app.
  const appProxy = createAppProxy(reposite, { trustProxy: settings.trustProxy ?? false });
  const server = createServer(appProxy.listener(siteNodeHandler(reposite, toNodeHandler(app))));
  listenForUpgrades(server, appProxy);
  const shutdown = gracefulShutdown(server);
  try {
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
    close: () =>
      (closing ??= (async () => {
        await shutdown();
        appProxy.close();
        await reposite.close();
      })()),
  };
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
