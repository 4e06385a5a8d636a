import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeGitHub, type FakeGitHub } from "@reposite/test-support";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type ServerSettings } from "../src/index.js";
import { DEFAULT_REPOS, json } from "./harness.js";

let github: FakeGitHub;
let dataDir: string;

beforeAll(async () => {
  github = await startFakeGitHub({ repos: DEFAULT_REPOS });
  dataDir = await mkdtemp(join(tmpdir(), "reposite-restart-"));
});
afterAll(async () => {
  await github.close();
  await rm(dataDir, { recursive: true, force: true });
});

it("keeps accounts, tokens and projects across a stop and start on the same data directory", async () => {
  const settings: ServerSettings = {
    listen: { port: 0, hostname: "127.0.0.1" },
    reposite: { config: { dataDir, baseUrl: "http://127.0.0.1", sitesDomain: "sites.test" }, github: { apiUrl: github.url, webHosts: ["github.com"] } },
  };
  const first = await startServer({ settings });
  const { account } = await first.reposite.accounts.findOrCreate("ada@example.com");
  const { secret } = await first.reposite.tokens.create(account.id, { name: "restart", lifetime: "30d" });
  const created = await (
    await fetch(`${first.url}/app/sites`, json({ repohost_url: "https://github.com/acme/rocket-cli", name: "Kept" }, secret))
  ).json();
  await fetch(`${first.url}/app/sites/${created.id}`, json({ ga_id: "G-KEPT1234" }, secret, "PATCH"));
  await first.close();
  await expect(fetch(`${first.url}/healthz`)).rejects.toThrow();

  const second = await startServer({ settings });
  try {
    const response = await fetch(`${second.url}/app/sites/${created.id}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: created.id, name: "Kept", ga_id: "G-KEPT1234", design: created.design });
    const list = await (await fetch(`${second.url}/app/sites`, { headers: { authorization: `Bearer ${secret}` } })).json();
    expect(list).toHaveLength(1);
  } finally {
    await second.close();
  }
});
