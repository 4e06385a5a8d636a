import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type CreateRepositeOptions, type Reposite } from "@reposite/core";
import { startFakeGitHub, type FakeGitHub, type FakeRepo } from "@reposite/test-support";
import { createApp } from "../src/app.js";
import { startServer, type RunningServer } from "../src/start-server.js";

export type Transport = "in-process" | "socket";

export interface Harness {
  reposite: Reposite;
  github: FakeGitHub;
  dataDir: string;
  /** Sends a request through the chosen transport; paths are relative to the API. */
  call(path: string, init?: RequestInit): Promise<Response>;
  /** A new account with a working token. */
  signUp(email: string): Promise<{ token: string; accountId: string }>;
  close(): Promise<void>;
}

export const DEFAULT_REPOS: FakeRepo[] = [
  { owner: "acme", name: "rocket-cli", description: "A fast command line tool for launching rockets", topics: ["cli", "terminal"], readme: "# rocket-cli\n\nLaunch rockets." },
  { owner: "acme", name: "secret-sauce", private: true, description: "Private", topics: [] },
];

/** A Reposite on a fresh data dir, talking to a loopback fake GitHub, reached in-process or over a socket. */
export async function startHarness(
  transport: Transport,
  repos: FakeRepo[] = DEFAULT_REPOS,
  extra: Omit<CreateRepositeOptions, "config"> & { config?: CreateRepositeOptions["config"] } = {},
): Promise<Harness> {
  const github = await startFakeGitHub({ repos });
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-test-"));
  const options: CreateRepositeOptions = {
    github: { apiUrl: github.url, webHosts: ["github.com"] },
    ...extra,
    config: { dataDir, baseUrl: "http://127.0.0.1:3000", sitesDomain: "sites.test", ...extra.config },
  };
  let server: RunningServer | undefined;
  let reposite: Reposite;
  let call: Harness["call"];
  if (transport === "socket") {
    server = await startServer({ settings: { listen: { port: 0, hostname: "127.0.0.1" }, reposite: options } });
    reposite = server.reposite;
    const base = server.url;
    call = (path, init) => fetch(`${base}${path}`, init);
  } else {
    reposite = createReposite(options);
    const app = createApp(reposite);
    call = async (path, init) => app.request(`http://127.0.0.1:3000${path}`, init);
  }
  return {
    reposite,
    github,
    dataDir,
    call,
    async signUp(email) {
      const { account } = await reposite.accounts.findOrCreate(email);
      const { secret } = await reposite.tokens.create(account.id, { name: "test", lifetime: "30d" });
      return { token: secret, accountId: account.id };
    },
    async close() {
      if (server) await server.close();
      else await reposite.close();
      await github.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const json = (body: unknown, token?: string, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: JSON.stringify(body),
});

export const bearer = (token: string, method = "GET"): RequestInit => ({ method, headers: { authorization: `Bearer ${token}` } });
