import { createReposite, type Reposite } from "@reposite/core";
import { toNodeHandler } from "h3";
import { listen } from "listhen";
import { createApp } from "./app.js";
import { settingsFromEnv, type ServerSettings } from "./config-from-env.js";
import { siteNodeHandler } from "./site-runtime/site-runtime.js";

export interface RunningServer {
  /** Where the server answers, for example `http://127.0.0.1:3000`. */
  url: string;
  reposite: Reposite;
  /** Stops accepting connections, then lets go of storage. */
  close(): Promise<void>;
}

/**
 * Starts the reference server. Settings come from the environment unless given; pass a
 * composed `reposite` to serve an embedder's own composition.
 */
export async function startServer(
  options: { settings?: ServerSettings; reposite?: Reposite } = {},
): Promise<RunningServer> {
  const settings = options.settings ?? settingsFromEnv();
  const reposite = options.reposite ?? createReposite(settings.reposite);
  const { port, hostname } = settings.listen;
  const app = createApp(reposite, { trustProxy: settings.trustProxy ?? false, discourse: settings.discourse ?? null });
  // Published pages already in memory are answered before h3; everything else goes through the app.
  const listener = await listen(siteNodeHandler(reposite, toNodeHandler(app)), {
    // A busy port is an error for a server, not a reason to move to another one.
    port: port === 0 ? { random: true, host: hostname } : { port, portRange: [port, port], alternativePortRange: [port, port], host: hostname },
    hostname,
    showURL: false,
    autoClose: false,
    qr: false,
    public: false,
    tunnel: false,
    ws: false,
  });
  const address = listener.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${actualPort}`,
    reposite,
    close: () =>
      (closing ??= (async () => {
        await listener.close();
        await reposite.close();
      })()),
  };
}
