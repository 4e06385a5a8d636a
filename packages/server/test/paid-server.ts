import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReposite } from "@reposite/core";
import { freePort, removeDataDir, type FakeGitHub, type FakeRepo, type FakeStripe, type FakeStripeWebhook } from "@reposite/test-support";
import { expect } from "vitest";
import { startServerProcess, type ServerProcess } from "./server-process.js";

// `reposite serve` in its own process with Stripe turned on by its environment variables and pointed
// (STRIPE_API_BASE) at the loopback Stripe, which delivers its signed webhooks to the server's
// /billing/webhook, as an operator sets it up. For the payment tests that need a real server.

/** A request to the API: a `body` goes as JSON, by POST unless `method` says otherwise. */
export interface ApiInit {
  method?: string;
  body?: unknown;
}

export interface PaidServer {
  server: ServerProcess;
  /** The account's project, made from `project.repo` on the fake GitHub. */
  site: string;
  /** The answer to `path`, with the account's token. */
  request(path: string, init?: ApiInit): Promise<Response>;
  /** The JSON of the answer to `path`, which must have `status`. */
  api<T = Record<string, unknown>>(path: string, status: number, init?: ApiInit): Promise<T>;
  /** Deploys the project and waits for the run's job to end `done`. */
  deploy(): Promise<void>;
  /** Stops the server (SIGKILL) and removes its data directory. */
  close(): Promise<void>;
}

/** A fresh data directory with one account (`email`) and its token, the server started on it, and one project. */
export async function startPaidServer(options: {
  stripe: FakeStripe;
  github: FakeGitHub;
  email: string;
  project: { repo: FakeRepo; name: string };
  env?: Record<string, string>;
}): Promise<PaidServer> {
  const { stripe, github, project } = options;
  const dataDir = await mkdtemp(join(tmpdir(), "reposite-paid-server-"));
  const reposite = createReposite({ config: { dataDir }, repoHosts: [] });
  const { account } = await reposite.accounts.findOrCreate(options.email);
  const token = (await reposite.tokens.create(account.id, { name: "paid-server", lifetime: "30d" })).secret;
  await reposite.close();
  const server = await startServerProcess(await freePort(), {
    REPOSITE_DATA_DIR: dataDir,
    REPOSITE_GITHUB_API_URL: github.url,
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_PRICE_EMBED: stripe.priceIds.embed,
    STRIPE_PRICE_MEMORY: stripe.priceIds.memory,
    STRIPE_PRICE_DISK: stripe.priceIds.disk,
    STRIPE_PRICE_DOMAIN: stripe.priceIds.domain,
    STRIPE_API_BASE: stripe.url,
    ...options.env,
  });
  // Where the operator points Stripe's webhook: the server's own endpoint.
  stripe.webhookUrl = `${server.url}/billing/webhook`;
  const request = (path: string, init: ApiInit = {}) =>
    fetch(`${server.url}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const api = async <T = Record<string, unknown>>(path: string, status: number, init: ApiInit = {}): Promise<T> => {
    const response = await request(path, init);
    const text = await response.text();
    expect(response.status, `${init.method ?? (init.body === undefined ? "GET" : "POST")} ${path}: ${text}`).toBe(status);
    return (text ? JSON.parse(text) : null) as T;
  };
  try {
    const { id: site } = await api<{ id: string }>("/app/sites", 201, { body: { repohost_url: `https://github.com/${project.repo.owner}/${project.repo.name}`, name: project.name } });
    return {
      server,
      site,
      request,
      api,
      async deploy() {
        const { job_id } = await api<{ job_id: string }>(`/app/sites/${site}/deployment/deploy`, 202, { method: "POST" });
        for (const deadline = Date.now() + 90_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
          const job = await api<{ status: string; finished_at: string | null }>(`/app/jobs/${job_id}`, 200);
          if (job.finished_at !== null) return expect(job.status).toBe("done");
          if (Date.now() > deadline) throw new Error("the deploy did not end");
        }
      },
      async close() {
        await server.kill();
        await removeDataDir(dataDir);
      },
    };
  } catch (error) {
    await server.kill();
    await removeDataDir(dataDir);
    throw error;
  }
}

/** Every event the fake sent reached the server's webhook endpoint and was taken (200). */
export function delivered(sent: FakeStripeWebhook[]): FakeStripeWebhook[] {
  for (const each of sent) expect(each.delivery, `${each.event.type}: ${each.delivery?.body}`).toMatchObject({ status: 200 });
  return sent;
}
