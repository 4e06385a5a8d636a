import type { Server } from "node:http";
import type { ServerSettings } from "./config-from-env.js";

/**
 * With `PORT=0` the system picks the port, so the server takes it before anything is composed:
 * addresses made from the settings (`http://localhost:0`, the sites domain `localhost:0`) then
 * carry the real port in every link, page and start-up line. Listening this early is safe: nobody
 * can know the port yet. Any other port is left to `startServer`, which listens last.
 */
export async function takePortZero(server: Server, settings: ServerSettings, listen: () => Promise<void>): Promise<ServerSettings> {
  if (settings.listen.port !== 0) return settings;
  await listen();
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const { config } = settings.reposite;
  return {
    ...settings,
    listen: { ...settings.listen, port },
    reposite: {
      ...settings.reposite,
      ...(config
        ? {
            config: {
              ...config,
              ...(config.baseUrl ? { baseUrl: withPort(config.baseUrl, port) } : {}),
              ...(config.sitesDomain ? { sitesDomain: withPort(config.sitesDomain, port) } : {}),
            },
          }
        : {}),
    },
  };
}

/** `http://localhost:0` → `http://localhost:43121`; `localhost:0` → `localhost:43121`; other ports stay. */
export function withPort(address: string, port: number): string {
  return address.replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?[^/?#]*?):0(?=[/?#]|$)/i, `$1:${port}`);
}
