import { afterEach, expect, it } from "vitest";
import { createClient, type RepositeClient } from "../src/index.js";
import { startScriptedServer, type ScriptedServer } from "./scripted-server.js";

// Every call of the resources added for the whole spec (deployment, billing, members, repohost,
// subdomains) sends the method, path, query and body the spec gives. The server answers each with
// its request, so the test also sees the answer handed back unchanged.
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function echoing(): Promise<RepositeClient> {
  server = await startScriptedServer([
    (res, req) => {
      if (req.method === "DELETE" && req.url === "/app/sites/site_1/deployment") return void res.writeHead(204).end();
      if (req.url?.startsWith("/app/sites/site_1/deployment/logs")) return void res.writeHead(200, { "content-type": "text/plain" }).end("line 1\nline 2\n");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ echo: `${req.method} ${req.url}` }));
    },
  ]);
  return createClient({ baseURL: server.url, token: "rps_test", maxRetries: 0 });
}

const sent = () => server!.requests.map((request) => [`${request.method} ${request.url}`, request.body ? JSON.parse(request.body) : undefined]);

it("deployment: every endpoint of app hosting", async () => {
  const client = await echoing();
  const { deployment } = client;
  await deployment.repoCheck("site_1");
  await deployment.repoCheck("site_1", { ref: "main", path: "docker/web.Dockerfile" });
  await deployment.setup("site_1", { build_mode: "auto", port: 8080, volume_path: "/data" });
  await deployment.get("site_1");
  await deployment.deploy("site_1");
  await deployment.runs.list("site_1");
  await deployment.runs.get("site_1", "run_9");
  await deployment.env.get("site_1");
  await deployment.env.set("site_1", { A: "1", B: null });
  await deployment.env.unset("site_1", ["C", "D"]);
  expect(await deployment.logs("site_1", { tail: 50 })).toBe("line 1\nline 2\n");
  await deployment.logs("site_1");
  await deployment.metrics("site_1");
  await deployment.resources("site_1");
  await deployment.restart("site_1");
  await deployment.stop("site_1");
  await deployment.start("site_1");
  await deployment.fix("site_1");
  await deployment.removeOverride("site_1");
  expect(await deployment.resetData("site_1", { confirm: "my-app" })).toEqual({ echo: "POST /app/sites/site_1/deployment/reset-data" });
  await expect(deployment.remove("site_1")).resolves.toBeUndefined();

  expect(sent()).toEqual([
    ["GET /app/sites/site_1/repo-check", undefined],
    ["GET /app/sites/site_1/repo-check?ref=main&path=docker%2Fweb.Dockerfile", undefined],
    ["PUT /app/sites/site_1/deployment", { build_mode: "auto", port: 8080, volume_path: "/data" }],
    ["GET /app/sites/site_1/deployment", undefined],
    ["POST /app/sites/site_1/deployment/deploy", undefined],
    ["GET /app/sites/site_1/deployment/runs", undefined],
    ["GET /app/sites/site_1/deployment/runs/run_9", undefined],
    ["GET /app/sites/site_1/deployment/env", undefined],
    ["PUT /app/sites/site_1/deployment/env", { env: { A: "1", B: null } }],
    ["PUT /app/sites/site_1/deployment/env", { env: { C: null, D: null } }],
    ["GET /app/sites/site_1/deployment/logs?tail=50", undefined],
    ["GET /app/sites/site_1/deployment/logs", undefined],
    ["GET /app/sites/site_1/deployment/metrics", undefined],
    ["GET /app/sites/site_1/deployment/resources", undefined],
    ["POST /app/sites/site_1/deployment/restart", undefined],
    ["POST /app/sites/site_1/deployment/stop", undefined],
    ["POST /app/sites/site_1/deployment/start", undefined],
    ["POST /app/sites/site_1/deployment/fix", undefined],
    ["DELETE /app/sites/site_1/deployment/override", undefined],
    ["POST /app/sites/site_1/deployment/reset-data", { confirm: "my-app" }],
    ["DELETE /app/sites/site_1/deployment", undefined],
  ]);
  // Logs are plain text: asked for as such.
  expect(server!.requests[10]!.headers.accept).toBe("text/plain");
});

it("deployment: resetData without confirm is refused before anything is sent", async () => {
  const client = await echoing();
  await expect(client.deployment.resetData("site_1", { confirm: "" })).rejects.toThrow(/confirm/);
  await expect(client.deployment.resetData("site_1", undefined as never)).rejects.toThrow(/confirm/);
  expect(server!.requests).toHaveLength(0);
});

it("billing, members, repohost and subdomains", async () => {
  const client = await echoing();
  await client.billing.prices();
  await client.billing.status();
  await client.billing.status("embed");
  await client.billing.status("domain", { site_id: "site_1" });
  await client.billing.checkout("embed", { site_id: "site_1", resources: { memory: 2, disk: 0 } });
  await client.billing.checkout("memory", { site_id: "site_1", units: 4 });
  await client.billing.checkout("domain", { site_id: "site_1", additional: true });
  await client.billing.confirm("memory", "cs_123");
  await client.billing.summary();
  await client.members.list("site_1");
  await client.repohost.repo("https://github.com/acme/private-thing");
  await client.repohost.connect("https://github.com/acme/private-thing");
  await client.repohost.status();
  await client.repohost.disconnect();
  await client.subdomains.check("rocket");

  expect(sent()).toEqual([
    ["GET /billing/prices", undefined],
    ["GET /billing", undefined],
    ["GET /billing/embed", undefined],
    ["GET /billing/domain?site_id=site_1", undefined],
    ["POST /billing/embed/checkout", { site_id: "site_1", resources: { memory: 2, disk: 0 } }],
    ["POST /billing/memory/checkout", { site_id: "site_1", units: 4 }],
    ["POST /billing/domain/checkout", { site_id: "site_1", additional: true }],
    ["POST /billing/memory/confirm", { session_id: "cs_123" }],
    ["GET /billing/account/summary", undefined],
    ["GET /app/sites/site_1/members", undefined],
    ["GET /app/repohost/repo?url=https:%2F%2Fgithub.com%2Facme%2Fprivate-thing", undefined],
    ["POST /app/repohost/connect", { repo: "https://github.com/acme/private-thing" }],
    ["GET /app/repohost", undefined],
    ["DELETE /app/repohost", undefined],
    ["GET /app/subdomain-check?slug=rocket", undefined],
  ]);
});

it("takes the contract's types only: no runtime import of @reposite/contract (or zod) anywhere in the SDK", async () => {
  const { readdir, readFile } = await import("node:fs/promises");
  const src = new URL("../src/", import.meta.url);
  const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith(".ts"));
  let typeImports = 0;
  for (const file of files) {
    const source = await readFile(new URL(file, src), "utf8");
    for (const [statement] of source.matchAll(/^(?:import|export)\b[^;]*?from\s+"(?:@reposite\/contract|zod)[^"]*";/gms)) {
      expect(statement, file).toMatch(/^(import|export) type\b/);
      typeImports++;
    }
  }
  expect(typeImports).toBeGreaterThan(0);
});
