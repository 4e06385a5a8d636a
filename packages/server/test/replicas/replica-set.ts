import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite, type Reposite } from "@reposite/core";
import { createPostgresPorts } from "@reposite/provider-postgres";
import { startFakeGitHub, startPostgres, startReplicas, type FakeGitHub, type Replicas, type TestPostgres } from "@reposite/test-support";
import { DEFAULT_REPOS } from "../harness.js";
import { BIN } from "../server-process.js";

export const SITES_DOMAIN = "sites.test";

/** N `reposite serve` replicas on one throwaway PostgreSQL, behind a round-robin balancer. */
export interface ReplicaSet extends Replicas {
  database: TestPostgres;
  github: FakeGitHub;
  secretKey: string;
  /** A Reposite on the same database in the test process, for setup the API cannot do. */
  direct(): Promise<Reposite>;
  /** An account made on the database (by no replica) and a working API token. */
  signUp(email: string): Promise<{ accountId: string; token: string; tokenId: string }>;
  stopAll(): Promise<void>;
}

export async function startReplicaSet(count: number, env: Record<string, string> = {}, extra: { github?: FakeGitHub } = {}): Promise<ReplicaSet> {
  const [database, github] = await Promise.all([startPostgres(), extra.github ?? startFakeGitHub({ repos: DEFAULT_REPOS })]);
  const secretKey = randomBytes(32).toString("base64");
  const directDir = await mkdtemp(join(tmpdir(), "reposite-replicas-direct-"));
  let direct: Reposite | undefined;
  const openDirect = async () =>
    (direct ??= createReposite({ config: { dataDir: directDir, sitesDomain: SITES_DOMAIN }, repoHosts: [], secretKey, ...createPostgresPorts({ url: database.url }) }));
  let replicas: Replicas;
  try {
    replicas = await startReplicas({
      bin: BIN,
      count,
      env: {
        REPOSITE_DATABASE_URL: database.url,
        REPOSITE_SECRET_KEY: secretKey,
        REPOSITE_HOSTING: "off",
        REPOSITE_GITHUB_API_URL: github.url,
        REPOSITE_SITES_DOMAIN: SITES_DOMAIN,
        ...env,
      },
    });
  } catch (error) {
    await database.stop();
    await github.close();
    throw error;
  }
  return {
    ...replicas,
    database,
    github,
    secretKey,
    direct: openDirect,
    async signUp(email) {
      const reposite = await openDirect();
      const { account } = await reposite.accounts.findOrCreate(email);
      const created = await reposite.tokens.create(account.id, { name: "replicas", lifetime: "30d" });
      return { accountId: account.id, token: created.secret, tokenId: created.token.id };
    },
    async stopAll() {
      await replicas.close();
      await direct?.close();
      await github.close();
      await database.stop();
      await rm(directDir, { recursive: true, force: true });
    },
  };
}

export interface HostResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with a chosen Host (fetch cannot set it), to one replica's site runtime. */
export function requestHost(
  base: string,
  host: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {},
): Promise<HostResponse> {
  const url = new URL(base);
  const body = init.form ? new URLSearchParams(init.form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: init.method ?? (body === undefined ? "GET" : "POST"),
        headers: {
          host,
          ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)) }),
          ...init.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Asks `check` every 10 ms until it is true; answers how long that took (ms). Fails after
 * `limitMs`, with the last thing `check` saw.
 */
export async function timeUntil(check: () => Promise<boolean>, limitMs = 5_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
