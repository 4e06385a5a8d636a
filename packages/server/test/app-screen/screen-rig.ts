import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@reposite/test-support";
import WebSocket from "ws";
import { settingsFromEnv } from "../../src/config-from-env.js";
import { startServer, type RunningServer } from "../../src/start-server.js";
import { startEngineHarness, type EngineHarness } from "../engine/engine-harness.js";

/** The engine harness's Reposite behind a real listening server whose base URL is where it listens. */
export interface ScreenRig {
  h: EngineHarness;
  server: RunningServer;
  /** `http://127.0.0.1:<port>`: the base URL, so the origin a page of this server sends. */
  url: string;
  /** A new account and a `Cookie` header holding a browser session of it. */
  person(): Promise<{ accountId: string; cookie: string; secret: string }>;
  close(): Promise<void>;
}

/** `harness`: options of the engine harness (shorter health checks, …); its base URL is always the rig's. */
export async function startScreenRig(harness: Parameters<typeof startEngineHarness>[0] = {}): Promise<ScreenRig> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const h = await startEngineHarness({ ...harness, config: { ...harness.config, baseUrl: url } });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-screen-"));
  const settings = settingsFromEnv({ PORT: String(port), HOST: "127.0.0.1", REPOSITE_BASE_URL: url, REPOSITE_DATA_DIR: dataDir });
  const server = await startServer({ settings, reposite: h.reposite });
  return {
    h,
    server,
    url,
    async person() {
      const accountId = await h.account();
      const { secret } = await h.reposite.sessions.create(accountId);
      return { accountId, secret, cookie: `reposite_session=${secret}` };
    },
    async close() {
      await server.close();
      await h.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** How an attempt to open a WebSocket ended: open, or refused with an HTTP status and body. */
export type SocketAttempt = { ws: WebSocket } | { status: number; body: Record<string, unknown> };

/** Opens `path` on the rig's server as a WebSocket with these headers. */
export function openSocket(url: string, path: string, headers: Record<string, string>): Promise<SocketAttempt> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}${path}`, { headers });
    ws.once("open", () => resolve({ ws }));
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    ws.once("error", reject);
  });
}
