import { OPERATIONS, openApiDocument } from "@reposite/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVER_VERSION } from "../src/version.js";
import { startHarness, type Harness } from "./harness.js";

// GET /openapi.json over a real socket: the API as OpenAPI 3.1, from the operations the routes are bound to.
describe("GET /openapi.json", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("socket");
  });
  afterAll(() => h.close());

  it("answers the OpenAPI 3.1 document of every operation, without a token", async () => {
    const response = await h.call("/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = await response.json();
    // The document the contract's tests validate (packages/contract/test/openapi-document.test.ts).
    const written = openApiDocument(OPERATIONS, { version: SERVER_VERSION, serverUrl: "http://127.0.0.1:3000" });
    expect(document).toEqual(JSON.parse(JSON.stringify(written)));
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe(SERVER_VERSION);
    expect(document.servers).toEqual([{ url: "http://127.0.0.1:3000" }]);
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(ids.sort()).toEqual(OPERATIONS.map((op) => op.id).sort());
    // What the server validates with is what the document says: the page-version body, for one.
    const create = document.paths["/app/sites/{site_id}/versions"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(["kind", "html", "name"]);
    expect(create.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
  });

  it("answers the same document every time (written once)", async () => {
    const [first, second] = await Promise.all([h.call("/openapi.json"), h.call("/openapi.json")]);
    expect(await first.text()).toBe(await second.text());
  });

  it("is linked from the root address for API clients", async () => {
    const root = await (await h.call("/", { headers: { accept: "application/json" } })).json();
    expect(root.openapi).toBe("http://127.0.0.1:3000/openapi.json");
  });
});
