import type { ServerResponse } from "node:http";
import { afterEach, expect, it } from "vitest";
import { createClient, RateLimitError, type ApiErrorCode, type JobStreamEvent, type RepositeAPIError } from "../src/index.js";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server.js";

// The follow helpers on a scripted server: a deploy followed to its end through a dropped stream
// and then read, a generation chain that stops at the job that failed; and errors told apart by code.
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const sse = (res: ServerResponse, frames: string[], end = true) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  // A dropped connection: the frames reach the client, then the socket breaks without an end.
  res.write(frames.join(""), () => (end ? res.end() : res.socket?.destroy()));
};
const job = (id: string, fields: Record<string, unknown>) => ({ job_id: id, type: "generate", error: null, finished_at: null, next_job_id: null, ...fields });

it("deployment.deployAndFollow streams the build log through a dropped connection, then answers the deployment read", async () => {
  let streams = 0;
  const froms: (string | null)[] = [];
  server = await startScriptedServer([
    (res, req) => {
      const url = new URL(req.url!, "http://x");
      if (req.method === "POST" && url.pathname === "/app/sites/site_1/deployment/deploy") return json(202, { job_id: "job_d", run_id: "run_1" })(res, req);
      if (url.pathname === "/app/jobs/job_d/stream") {
        streams++;
        froms.push(url.searchParams.get("from"));
        const meta = frame("meta", job("job_d", { type: "deploy", status: "running" }));
        // The first connection drops after two lines of the log; the second resumes at from=2.
        if (streams === 1) return sse(res, [meta, frame("delta", { i: 0, t: "Step 1/3\n" }), frame("delta", { i: 1, t: "Step 2/3\n" })], false);
        return sse(res, [meta, frame("delta", { i: 2, t: "Step 3/3\n" }), frame("done", job("job_d", { type: "deploy", status: "done", finished_at: "2025-01-01 00:00:09" }))]);
      }
      if (req.method === "GET" && url.pathname === "/app/sites/site_1/deployment") {
        return json(200, { status: "running", url: "https://rocket.sites.example/app/", last_run: { run_id: "run_1", status: "done" } })(res, req);
      }
      json(404, { error: `unexpected ${req.method} ${req.url}` })(res, req);
    },
  ]);
  const client = createClient({ baseURL: server.url, token: "rps_t", sleep: async () => {} });
  const events: JobStreamEvent[] = [];
  const deployment = await client.deployment.deployAndFollow("site_1", { onEvent: (event) => events.push(event) });

  expect(deployment).toMatchObject({ status: "running", last_run: { run_id: "run_1", status: "done" } });
  expect(events.map((event) => event.type)).toEqual(["meta", "delta", "delta", "delta", "done"]);
  expect(events.flatMap((event) => (event.type === "delta" ? [event.t] : [])).join("")).toBe("Step 1/3\nStep 2/3\nStep 3/3\n");
  expect(froms).toEqual([null, "2"]);
  // The deployment is read only after the job ended.
  expect(server.requests.map((r) => `${r.method} ${new URL(r.url, "http://x").pathname}`).at(-1)).toBe("GET /app/sites/site_1/deployment");
});

it("jobs.followChain stops at the first job that did not end done", async () => {
  server = await startScriptedServer([
    (res, req) => {
      const id = /\/app\/jobs\/(\w+)\/stream/.exec(req.url!)?.[1];
      const ends: Record<string, [string, Record<string, unknown>]> = {
        job_1: ["done", { status: "done", next_job_id: "job_2" }],
        job_2: ["error", { status: "error", error: "The AI answered nothing.", next_job_id: "job_3" }],
      };
      const [event, fields] = ends[id!]!;
      sse(res, [frame("meta", job(id!, { status: "running" })), frame(event, job(id!, { ...fields, finished_at: "2025-01-01 00:00:01" }))]);
    },
  ]);
  const client = createClient({ baseURL: server.url, token: "rps_t" });
  const jobs = await client.jobs.followChain("job_1");
  expect(jobs.map((j) => [j.job_id, j.status])).toEqual([
    ["job_1", "done"],
    ["job_2", "error"],
  ]);
  expect(server.requests).toHaveLength(2);
});

it("errors are told apart by code as well as status; RateLimitError says how long to wait", async () => {
  server = await startScriptedServer([
    json(402, { error: "App hosting is not paid for.", code: "payment_required" }),
    json(409, { error: "Set the app up first.", code: "not_configured" }),
    json(409, { error: "The disk is full.", code: "storage_full" }),
    json(429, { error: "Too many.", code: "rate_limited" }, { "retry-after": "3600" }),
    json(429, { error: "At most 30 a day.", code: "generation_limit", retry_after: 120 }),
    json(429, { error: "Later." }),
  ]);
  const client = createClient({ baseURL: server.url, token: "rps_t", maxRetries: 0 });
  const codes: (ApiErrorCode | string | undefined)[] = [];
  for (let n = 0; n < 3; n++) {
    const error = (await client.deployment.deploy("site_1").catch((e: unknown) => e)) as RepositeAPIError;
    codes.push(error.code);
    // `code` is typed with the known codes: this comparison compiles, a typo in a known code would not be offered.
    if (error.code === "payment_required") expect(error.status).toBe(402);
  }
  expect(codes).toEqual(["payment_required", "not_configured", "storage_full"]);

  const limits = [];
  for (let n = 0; n < 3; n++) limits.push((await client.sites.generate("site_1", { mode: "landing" }).catch((e: unknown) => e)) as RateLimitError);
  expect(limits.every((error) => RateLimitError.isInstance(error))).toBe(true);
  expect(limits.map((error) => [error.code, error.retryAfter])).toEqual([
    ["rate_limited", 3600],
    ["generation_limit", 120],
    [undefined, undefined],
  ]);
});
