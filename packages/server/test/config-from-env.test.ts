import { startFakeStripe } from "@reposite/test-support";
import { describe, expect, it } from "vitest";
import { settingsFromEnv } from "../src/config-from-env.js";

describe("settings from the environment", () => {
  it("run on embedded defaults with an empty environment", () => {
    const settings = settingsFromEnv({});
    expect(settings.listen).toEqual({ port: 3000, hostname: "127.0.0.1" });
    expect(settings.reposite.config).toMatchObject({
      baseUrl: "http://localhost:3000",
      sitesDomain: "localhost:3000",
      dataDir: ".reposite",
      operatorEmails: [],
      baseImages: {},
    });
    expect(settings.reposite.mailer).toBeUndefined();
    expect(settings.reposite.languageModel).toBeUndefined();
    expect(settings.reposite.github).toEqual({});
    expect(settings.trustProxy).toBe(false);
    expect(settings.reposite.config?.allowPrivateFetch).toBe(false);
  });

  it("read every variable of the README's table", () => {
    const settings = settingsFromEnv({
      PORT: "8080",
      HOST: "0.0.0.0",
      REPOSITE_DATA_DIR: "/var/lib/reposite",
      REPOSITE_BASE_URL: "https://reposite.example/",
      REPOSITE_SITES_DOMAIN: "sites.example",
      REPOSITE_GITHUB_API_URL: "https://ghe.example/api/v3",
      REPOSITE_GITHUB_TOKEN: "ghp_x",
      REPOSITE_MAIL_FROM: "Sites <sites@example.com>",
      REPOSITE_OPERATORS: "Ops@Example.com, root@example.com",
      REPOSITE_TRUST_PROXY: "1",
      REPOSITE_ALLOW_PRIVATE_FETCH: "1",
      REPOSITE_SITE_CACHE_MB: "16",
      SMTP_URL: "smtp://user:pass@127.0.0.1:2525",
      REPOSITE_BASE_IMAGE_NODE: "mirror.example/node:22",
      REPOSITE_BASE_IMAGE_STATIC: "mirror.example/static:1",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      REPOSITE_AI_MODEL: "llama3.2",
    });
    expect(settings.listen).toEqual({ port: 8080, hostname: "0.0.0.0" });
    expect(settings.reposite.config).toEqual({
      baseUrl: "https://reposite.example",
      sitesDomain: "sites.example",
      dataDir: "/var/lib/reposite",
      mailFrom: "Sites <sites@example.com>",
      operatorEmails: ["ops@example.com", "root@example.com"],
      baseImages: { node: "mirror.example/node:22", static: "mirror.example/static:1" },
      allowPrivateFetch: true,
      siteCacheBytes: 16 * 1024 * 1024,
    });
    expect(settings.reposite.github).toEqual({ apiUrl: "https://ghe.example/api/v3", token: "ghp_x" });
    expect(typeof settings.reposite.mailer?.send).toBe("function");
    expect(settings.reposite.languageModel).toMatchObject({ provider: "openai", modelId: "llama3.2" });
    expect(settings.trustProxy).toBe(true);
  });

  it("refuse a site cache size that is not a positive number", () => {
    expect(() => settingsFromEnv({ REPOSITE_SITE_CACHE_MB: "lots" })).toThrow(/REPOSITE_SITE_CACHE_MB/);
    expect(() => settingsFromEnv({ REPOSITE_SITE_CACHE_MB: "0" })).toThrow(/REPOSITE_SITE_CACHE_MB/);
  });

  it("take GitHub's web address for links and OAuth apart from its API, and the local folders people may use", () => {
    const settings = settingsFromEnv({
      REPOSITE_GITHUB_API_URL: "http://127.0.0.1:8080/github-proxy",
      REPOSITE_GITHUB_WEB_URL: "https://ghe.example.com",
      REPOSITE_GITHUB_CLIENT_ID: "id",
      REPOSITE_GITHUB_CLIENT_SECRET: "secret",
      REPOSITE_LOCAL_REPOS: "/srv/repos, /home/ops/site ,",
    });
    expect(settings.reposite.github).toEqual({ apiUrl: "http://127.0.0.1:8080/github-proxy", webUrl: "https://ghe.example.com" });
    expect(settings.reposite.githubOAuth).toMatchObject({ webUrl: "https://ghe.example.com" });
    expect(settings.reposite.localRepos).toEqual(["/srv/repos", "/home/ops/site"]);
    expect(() => settingsFromEnv({ REPOSITE_GITHUB_WEB_URL: "ghe.example.com" })).toThrow(/REPOSITE_GITHUB_WEB_URL/);
  });

  it("look for Docker at start unless REPOSITE_HOSTING=off, and read app hosting's limits", () => {
    expect(settingsFromEnv({}).hosting).toBe("detect");
    expect(settingsFromEnv({}).reposite.hosting).toEqual({});
    expect(settingsFromEnv({ REPOSITE_HOSTING: "off" }).hosting).toBe("off");
    expect(() => settingsFromEnv({ REPOSITE_HOSTING: "kubernetes" })).toThrow(/REPOSITE_HOSTING/);
    const settings = settingsFromEnv({
      REPOSITE_BUILD_CONCURRENCY: "3",
      REPOSITE_BUILD_MEMORY_MB: "1024",
      REPOSITE_BUILD_TIMEOUT_MINUTES: "5",
      REPOSITE_BARE_IMAGES: "alpine:3.20=mirror.example/alpine:3.20, ubuntu:24.04=mirror.example/ubuntu:24.04",
      REPOSITE_APP_LABELS: "example.instance=eu-1",
    });
    expect(settings.reposite.hosting).toEqual({
      buildConcurrency: 3,
      buildMemoryMb: 1024,
      buildTimeoutMs: 5 * 60_000,
      bareImages: { "alpine:3.20": "mirror.example/alpine:3.20", "ubuntu:24.04": "mirror.example/ubuntu:24.04" },
      labels: { "example.instance": "eu-1" },
    });
    expect(() => settingsFromEnv({ REPOSITE_BUILD_CONCURRENCY: "0" })).toThrow(/REPOSITE_BUILD_CONCURRENCY/);
    expect(() => settingsFromEnv({ REPOSITE_BUILD_MEMORY_MB: "32" })).toThrow(/REPOSITE_BUILD_MEMORY_MB/);
    expect(() => settingsFromEnv({ REPOSITE_BARE_IMAGES: "centos:7=x" })).toThrow(/the bare-box images are/);
    expect(() => settingsFromEnv({ REPOSITE_APP_LABELS: "novalue" })).toThrow(/REPOSITE_APP_LABELS/);
  });

  it("refuse a port that is not a port", () => {
    expect(() => settingsFromEnv({ PORT: "http" })).toThrow(/PORT/);
  });

  it("leave payments off without STRIPE_SECRET_KEY, and sell through Stripe with it: the key, the webhook secret, the prices, the API base", async () => {
    expect(settingsFromEnv({}).reposite.payments).toBeUndefined();
    const fake = await startFakeStripe();
    try {
      const payments = settingsFromEnv({
        STRIPE_SECRET_KEY: fake.secretKey,
        STRIPE_WEBHOOK_SECRET: fake.webhookSecret,
        STRIPE_PRICE_EMBED: fake.priceIds.embed,
        STRIPE_PRICE_MEMORY: fake.priceIds.memory,
        STRIPE_PRICE_DISK: fake.priceIds.disk,
        STRIPE_PRICE_DOMAIN: fake.priceIds.domain,
        STRIPE_API_BASE: fake.url,
      }).reposite.payments;
      expect(payments).toMatchObject({ name: "stripe", enabled: true });
      expect(Object.keys((await payments?.catalog()) ?? {}).sort()).toEqual(["disk", "domain", "embed", "memory"]);
      const hook = await fake.webhook("customer.created", { id: "cus_env", object: "customer" });
      expect(await payments?.parseWebhook(hook.payload, hook.signature)).toMatchObject({ type: "ignored" });
    } finally {
      await fake.close();
    }
  });

  it("refuse a Stripe secret key without STRIPE_WEBHOOK_SECRET, saying so", () => {
    expect(() => settingsFromEnv({ STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PRICE_EMBED: "price_x" })).toThrow(/STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY/);
  });
});
