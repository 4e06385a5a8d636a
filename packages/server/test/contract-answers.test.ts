import { defineOperation } from "@reposite/contract";
import { H3 } from "h3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { errorResponse } from "../src/http/error-response.js";
import { operationRoute } from "../src/http/operation-route.js";
import { healthRoutes } from "../src/routes/health.js";

const thing = defineOperation({
  id: "things.get",
  method: "GET",
  path: "/things/:thing_id",
  tag: "Things",
  summary: "One thing",
  auth: "none",
  params: z.object({ thing_id: z.string() }),
  answers: {
    200: { description: "The thing", schema: z.strictObject({ id: z.string(), size: z.int() }) },
    204: { description: "Nothing to say" },
    202: { description: "A text", contentType: "text/plain" },
  },
});

/** An app whose one route answers what `answer` gives, through the same error handling as the server's. */
function appAnswering(answer: (id: string, event: Parameters<Parameters<typeof operationRoute>[2]>[0]) => unknown) {
  const app = new H3({ silent: true, onError: errorResponse });
  operationRoute(app, thing, (event, { params }) => answer(params.thing_id, event));
  return (path = "/things/t1") => app.request(`http://127.0.0.1${path}`);
}

// REPOSITE_CHECK_ANSWERS=1 (vitest.config.ts) makes every bound route prove its answers against
// its operation: an API test of a route then fails on any answer the contract does not document.
describe("the answer check of operationRoute", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("lets documented answers through", async () => {
    expect(process.env.REPOSITE_CHECK_ANSWERS).toBe("1");
    const ok = await appAnswering((id) => ({ id, size: 3 }))();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ id: "t1", size: 3 });
    const empty = await appAnswering((_id, event) => {
      event.res.status = 204;
      return null;
    })();
    expect(empty.status).toBe(204);
    const text = await appAnswering(() => new Response("hello", { status: 202, headers: { "content-type": "text/plain; charset=utf-8" } }))();
    expect(text.status).toBe(202);
  });

  it.each([
    ["a field of the wrong type", () => ({ id: "t1", size: "3" }), "size"],
    ["a field left out", () => ({ id: "t1" }), "size"],
    ["a field the operation does not document", () => ({ id: "t1", size: 3, colour: "red" }), "colour"],
    ["a body where none is documented", (_id: string, event: { res: { status?: number } }) => ((event.res.status = 204), { id: "t1" }), "a body where none"],
    ["a status the operation does not document", (_id: string, event: { res: { status?: number } }) => ((event.res.status = 201), { id: "t1", size: 3 }), "status 201"],
    ["a Response of another content type", () => new Response("{}", { status: 202, headers: { "content-type": "application/json" } }), "content type"],
  ])("fails %s with 500 answer_mismatch", async (_what, answer, said) => {
    const response = await appAnswering(answer as never)();
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ code: "answer_mismatch" });
    expect(body.error).toContain("things.get");
    expect(body.error).toContain(said);
  });

  it("lets any answer through when REPOSITE_CHECK_ANSWERS is unset (production)", async () => {
    vi.stubEnv("REPOSITE_CHECK_ANSWERS", undefined);
    const wrong = await appAnswering((id) => ({ id, size: "3" }))();
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).toEqual({ id: "t1", size: "3" });
    const undocumented = await appAnswering((_id, event) => {
      event.res.status = 201;
      return { id: "t1", size: 3 };
    })();
    expect(undocumented.status).toBe(201);
  });

  it("proves the health check's 503 against its documented answer", async () => {
    const app = new H3({ silent: true, onError: errorResponse });
    const failing = { hasItem: () => Promise.reject(new Error("disk gone")) };
    healthRoutes(app, { container: { resolve: () => failing } } as never);
    const response = await app.request("http://127.0.0.1/healthz");
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "unavailable", error: "Storage does not answer.", code: "storage_unavailable" });
  });
});
