import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@reposite/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";
import { startServer } from "../src/start-server.js";

describe("built-in ACME from the environment", () => {
  it("REPOSITE_HTTPS_PORT turns it on with Let's Encrypt production by default", () => {
    expect(settingsFromEnv({}).https).toBeUndefined();
    expect(settingsFromEnv({ REPOSITE_HTTPS_PORT: "443" }).https).toEqual({
      port: 443,
      acme: { directoryUrl: "https://acme-v02.api.letsencrypt.org/directory" },
    });
  });

  it("REPOSITE_ACME_* set the directory, contact, test CA, renewal window and the operator's own names", () => {
    const settings = settingsFromEnv({
      REPOSITE_HTTPS_PORT: "8443",
      REPOSITE_ACME_DIRECTORY_URL: "https://127.0.0.1:14000/dir",
      REPOSITE_ACME_EMAIL: "ops@example.com",
      REPOSITE_ACME_CA_FILE: "/etc/pebble/cert.pem",
      REPOSITE_ACME_RENEW_DAYS: "20",
      REPOSITE_ACME_HOSTNAMES: "Reposite.Example, www.reposite.example",
    });
    expect(settings.https).toEqual({
      port: 8443,
      acme: {
        directoryUrl: "https://127.0.0.1:14000/dir",
        email: "ops@example.com",
        caFile: "/etc/pebble/cert.pem",
        renewBeforeDays: 20,
        hostnames: ["reposite.example", "www.reposite.example"],
      },
    });
  });

  it("refuses bad values and ACME settings without the HTTPS port, naming the variable", () => {
    expect(() => settingsFromEnv({ REPOSITE_HTTPS_PORT: "https" })).toThrow(/REPOSITE_HTTPS_PORT must be a whole number/);
    expect(() => settingsFromEnv({ REPOSITE_HTTPS_PORT: "443", REPOSITE_ACME_DIRECTORY_URL: "letsencrypt" })).toThrow(/REPOSITE_ACME_DIRECTORY_URL/);
    expect(() => settingsFromEnv({ REPOSITE_HTTPS_PORT: "443", REPOSITE_ACME_EMAIL: "ops" })).toThrow(/REPOSITE_ACME_EMAIL must be an email address/);
    expect(() => settingsFromEnv({ REPOSITE_HTTPS_PORT: "443", REPOSITE_ACME_RENEW_DAYS: "0" })).toThrow(/REPOSITE_ACME_RENEW_DAYS/);
    expect(() => settingsFromEnv({ REPOSITE_ACME_EMAIL: "ops@example.com" })).toThrow(/REPOSITE_ACME_EMAIL is set but REPOSITE_HTTPS_PORT is not/);
  });
});

describe("starting with built-in ACME", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "reposite-acme-start-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const settings = (https: { port: number; caFile?: string }, httpPort = 0) => ({
    listen: { port: httpPort, hostname: "127.0.0.1" },
    hosting: "off" as const,
    https: { port: https.port, acme: { directoryUrl: "https://127.0.0.1:9/dir", ...(https.caFile ? { caFile: https.caFile } : {}) } },
    reposite: { config: { dataDir } },
  });

  it("fails with the variable's name when the CA file cannot be read or holds no certificate", async () => {
    await expect(startServer({ settings: settings({ port: 0, caFile: join(dataDir, "missing.pem") }) })).rejects.toThrow(/REPOSITE_ACME_CA_FILE names .*missing\.pem, which cannot be read \(ENOENT\)/);
    const notPem = join(dataDir, "not.pem");
    await writeFile(notPem, "hello");
    await expect(startServer({ settings: settings({ port: 0, caFile: notPem }) })).rejects.toThrow(/holds no PEM certificate/);
  });

  it("fails naming REPOSITE_HTTPS_PORT when that port is busy, and frees the HTTP port it took", async () => {
    const [port, httpPort] = [await freePort(), await freePort()];
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
    try {
      await expect(startServer({ settings: settings({ port }, httpPort) })).rejects.toThrow(/Port \d+ on 127\.0\.0\.1 is already in use\. .*set REPOSITE_HTTPS_PORT to another port/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    const again = createServer();
    await new Promise<void>((resolve, reject) => again.once("error", reject).listen(httpPort, "127.0.0.1", resolve));
    await new Promise((resolve) => again.close(resolve));
  });

  it("answers plain HTTP and HTTPS on their ports (HTTPS refusing names it has no certificate for)", async () => {
    const server = await startServer({ settings: settings({ port: 0 }) });
    try {
      expect(server.httpsUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await expect(fetch(`${server.httpsUrl}/healthz`)).rejects.toThrow();
    } finally {
      await server.close();
    }
  });
});
