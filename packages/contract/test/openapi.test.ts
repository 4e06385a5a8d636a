import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineOperation, openApiDocument, openApiPath } from "../src/index.js";

describe("openApiDocument", () => {
  const shared = z.object({ id: z.string() }).meta({ id: "Thing" });
  const op = defineOperation({
    id: "things.get",
    method: "GET",
    path: "/things/:thing_id",
    tag: "Things",
    summary: "One thing",
    auth: "token",
    params: z.object({ thing_id: z.string() }),
    query: z.object({ full: z.enum(["1"]).optional() }),
    answers: { 200: { description: "The thing", schema: z.object({ thing: shared }) } },
    errors: ["not_found"],
  });

  it("turns h3 placeholders into OpenAPI ones", () => {
    expect(openApiPath("/a/:b_id/c/:d")).toBe("/a/{b_id}/c/{d}");
  });

  it("writes paths, parameters, answers and shared components", () => {
    const doc = openApiDocument([op], { version: "1.2.3" }) as any;
    expect(doc.openapi).toBe("3.1.0");
    const get = doc.paths["/things/{thing_id}"].get;
    expect(get.operationId).toBe("things.get");
    expect(get.parameters).toEqual([
      expect.objectContaining({ name: "thing_id", in: "path", required: true }),
      expect.objectContaining({ name: "full", in: "query", required: false }),
    ]);
    expect(get.responses["200"].content["application/json"].schema.properties.thing).toEqual({ $ref: "#/components/schemas/Thing" });
    expect(doc.components.schemas.Thing.properties.id).toEqual({ type: "string" });
    expect(get.responses.default.description).toContain("not_found");
  });
});
