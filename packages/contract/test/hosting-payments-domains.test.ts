import { describe, expect, it } from "vitest";
import {
  billingCheckout,
  billingWebhook,
  checkoutInputSchema,
  deploymentLogs,
  deploymentSchema,
  deploymentSetup,
  domainReadSchema,
  logTailSchema,
  openApiDocument,
  resetDataInputSchema,
  runDetailSchema,
  setupInputSchema,
  tlsAsk,
  tlsAskAnswerSchema,
} from "../src/index.js";

const deployment = {
  build_mode: "dockerfile",
  dockerfile_path: "Dockerfile",
  base_image: null,
  port: 3000,
  ref: "HEAD",
  health_path: "/",
  volume_path: null,
  root_dir: null,
  slug: "rocket",
  status: "failed",
  url: "http://rocket.sites.test/app/",
  last_run: {
    run_id: "run_1",
    status: "failed",
    finished_at: "2026-01-01T00:00:00.000Z",
    reason: "The app exited.",
    diagnosis: { kind: "crash_on_start", title: "The app crashed", detail: "It exited with 1.", fix: "Read its log.", evidence: { exit_code: 1 } },
    last_exit_oom: false,
  },
  last_exit_oom: false,
  env_keys: ["API_KEY"],
  override: false,
  stopped_reason: null,
  last_operation: null,
};

describe("app hosting schemas", () => {
  it("the deployment read is strict: a field it does not document (an env value, say) fails the answer check", () => {
    expect(deploymentSchema.safeParse(deployment).success).toBe(true);
    expect(deploymentSchema.safeParse({ ...deployment, env: { API_KEY: "secret" } }).success).toBe(false);
    expect(deploymentSchema.safeParse({ ...deployment, status: "queued" }).success).toBe(false);
    const diagnosis = { ...deployment.last_run.diagnosis, kind: "gremlins" };
    expect(deploymentSchema.safeParse({ ...deployment, last_run: { ...deployment.last_run, diagnosis } }).success).toBe(false);
  });

  it("a run read singly carries its log tail but never whose it is", () => {
    const run = {
      run_id: "run_1",
      job_id: null,
      status: "queued",
      ref: "HEAD",
      build_mode: "auto",
      created_at: "t",
      started_at: null,
      finished_at: null,
      reason: null,
      exit_oom: false,
      diagnosis: null,
      dockerfile_source: "repository",
      log_lines: 0,
      log_tail: "",
    };
    expect(runDetailSchema.safeParse(run).success).toBe(true);
    expect(runDetailSchema.safeParse({ ...run, owner_id: "acct_1" }).success).toBe(false);
  });

  it("the setup input keeps its rules: relative Dockerfile paths normalised, .. and unknown fields refused", () => {
    expect(setupInputSchema.parse({ dockerfile_path: " ./docker//web.Dockerfile ", volume_path: "/data/" })).toEqual({ dockerfile_path: "docker/web.Dockerfile", volume_path: "/data" });
    expect(setupInputSchema.safeParse({ dockerfile_path: "../Dockerfile" }).error?.issues[0]?.path).toEqual(["dockerfile_path"]);
    expect(setupInputSchema.safeParse({ volume_path: "/proc/x" }).success).toBe(false);
    expect(setupInputSchema.safeParse({ prot: 3000 }).success).toBe(false);
  });

  it.each([
    ["", 200],
    ["7", 7],
    [" 12 ", 12],
    ["999999", 5000],
  ])("logs tail %j reads %i lines", (tail, lines) => {
    expect(logTailSchema.parse(tail)).toBe(lines);
  });

  it.each(["0", "-3", "abc", "2.5", " "])("logs tail %j is refused, saying the range", (tail) => {
    expect(logTailSchema.safeParse(tail).error?.issues[0]?.message).toContain("5000");
  });

  it("reset-data lets a missing or null confirm through to the server's confirm_mismatch, which names the slug", () => {
    expect(resetDataInputSchema.safeParse({}).success).toBe(true);
    expect(resetDataInputSchema.safeParse({ confirm: null }).success).toBe(true);
    expect(resetDataInputSchema.safeParse({ confirm: 5 }).success).toBe(false);
  });
});

describe("payments schemas", () => {
  it("a checkout's site_id must be an id; its units reach the server's own check (400 invalid_units, the spec's code)", () => {
    expect(checkoutInputSchema.safeParse({ site_id: "../x" }).error?.issues[0]?.path).toEqual(["site_id"]);
    for (const units of [3, "2", null, 2.5]) expect(checkoutInputSchema.safeParse({ site_id: "site_abc", units }).success, String(units)).toBe(true);
    expect(checkoutInputSchema.safeParse({ site_id: "site_abc", additional: "yes" }).success).toBe(false);
  });
});

describe("custom domain schemas", () => {
  it("the domain read says live, live_url and live_reason; the TLS ask answers allowed true with a kind", () => {
    const read = { domain: null, domain_unicode: null, apex: false, records: [], verified: false, verified_at: null, live: false, live_url: null, live_reason: "No domain." };
    expect(domainReadSchema.safeParse(read).success).toBe(true);
    expect(domainReadSchema.safeParse({ ...read, live: undefined }).success).toBe(false);
    expect(tlsAskAnswerSchema.safeParse({ allowed: true, domain: "www.example.com", kind: "custom_domain" }).success).toBe(true);
    expect(tlsAskAnswerSchema.safeParse({ allowed: false, domain: "www.example.com", kind: "custom_domain" }).success).toBe(false);
  });
});

describe("in the OpenAPI document", () => {
  const document = openApiDocument([deploymentSetup, deploymentLogs, billingCheckout, billingWebhook, tlsAsk], { version: "test" }) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, unknown> }>; security?: unknown[]; parameters?: { name: string; schema: unknown; required: boolean }[] }>>;
    components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
  };

  it("setup answers 201 and 200 with the Deployment component", () => {
    const put = document.paths["/app/sites/{site_id}/deployment"]!.put!;
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(["200", "201"]));
    expect(document.components.schemas.Deployment).toBeDefined();
  });

  it("logs are plain text; the tail is an optional query parameter", () => {
    const get = document.paths["/app/sites/{site_id}/deployment/logs"]!.get!;
    expect(Object.keys(get.responses["200"]!.content!)).toEqual(["text/plain"]);
    expect(get.parameters).toContainEqual(expect.objectContaining({ name: "tail", required: false }));
  });

  it("checkout units are documented as the steps sold, resources' steps with 0", () => {
    const input = document.components.schemas.CheckoutInput!;
    expect(input.properties.units).toMatchObject({ type: "integer", enum: [1, 2, 4, 8, 16] });
    expect((input.properties.resources as { properties: Record<string, unknown> }).properties.memory).toMatchObject({ enum: [0, 1, 2, 4, 8, 16] });
  });

  it("the webhook and the TLS ask need no token; the webhook's raw body has no schema", () => {
    const webhook = document.paths["/billing/webhook"]!.post!;
    expect(webhook.security).toEqual([]);
    expect(webhook.requestBody).toBeUndefined();
    expect(document.paths["/tls/ask"]!.get!.security).toEqual([]);
  });
});
