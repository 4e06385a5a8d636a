import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort, startFakeStripe, type FakeStripe } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, startServerProcess } from "./server-process.js";

/** `reposite serve` says at start whether it sells through Stripe, and refuses half a Stripe configuration. */
describe("payments at start-up, in a real server process", () => {
  let fake: FakeStripe;
  let dataDir: string;
  beforeAll(async () => {
    fake = await startFakeStripe();
    dataDir = await mkdtemp(join(tmpdir(), "reposite-payments-start-"));
  });
  afterAll(async () => {
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const base = () => ({ REPOSITE_DATA_DIR: dataDir, REPOSITE_HOSTING: "off" });

  it("says payments are off without STRIPE_SECRET_KEY", async () => {
    const server = await startServerProcess(await freePort(), base());
    try {
      expect(server.output().stdout).toContain("payments: off: everything is free (no STRIPE_SECRET_KEY)");
    } finally {
      await server.stop();
    }
  });

  it("says payments are on (stripe) with the Stripe variables", async () => {
    const server = await startServerProcess(await freePort(), {
      ...base(),
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
      STRIPE_PRICE_EMBED: fake.priceIds.embed,
      STRIPE_API_BASE: fake.url,
    });
    try {
      expect(server.output().stdout).toContain("payments: on (stripe)");
    } finally {
      await server.stop();
    }
  });

  it("does not start with a secret key but no webhook secret, and says why without printing the key", async () => {
    const env = { ...process.env, ...base(), HOST: "127.0.0.1", PORT: String(await freePort()), STRIPE_SECRET_KEY: fake.secretKey, STRIPE_PRICE_EMBED: fake.priceIds.embed };
    const failed = await promisify(execFile)(process.execPath, [BIN, "serve"], { env, timeout: 20_000 }).then(
      () => undefined,
      (error: { code?: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toContain("STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY");
    expect(`${failed?.stdout}${failed?.stderr}`).not.toContain(fake.secretKey);
  });
});
