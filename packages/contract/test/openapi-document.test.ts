import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { OPERATIONS, openApiDocument, type Operation } from "../src/index.js";

const placeholders = (path: string) => [...path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]!).sort();

/** Every `$ref` in `value`, wherever it sits. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const each of value) refsIn(each, found);
  else if (value && typeof value === "object") {
    for (const [key, each] of Object.entries(value)) {
      if (key === "$ref" && typeof each === "string") found.push(each);
      else refsIn(each, found);
    }
  }
  return found;
}

// The document /openapi.json serves, made from every operation of the API.
describe("the OpenAPI document of the API", () => {
  const document = openApiDocument(OPERATIONS, { version: "1.2.3", serverUrl: "https://reposite.example" }) as any;

  it("is a well-formed OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // Every reference resolves (the validator throws on one that does not).
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it("is refused by the validator when broken (the check has teeth)", async () => {
    const broken = structuredClone(document);
    broken.paths["/healthz"].get.parameters = [{ name: "status", in: "body" }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("names every operation once, under its path", () => {
    const ids = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(ids.sort()).toEqual(OPERATIONS.map((op) => op.id).sort());
    expect(document.servers).toEqual([{ url: "https://reposite.example" }]);
    expect(document.info.version).toBe("1.2.3");
  });

  it.each(OPERATIONS.map((op) => [op.id, op] as [string, Operation]))("%s: its path params are its path's placeholders", (_id, op) => {
    expect(Object.keys(op.params?.shape ?? {}).sort()).toEqual(placeholders(op.path));
  });

  it("points every reference at a component it carries", () => {
    const components = Object.keys(document.components.schemas);
    for (const ref of refsIn(document.paths)) expect(components).toContain(ref.replace("#/components/schemas/", ""));
    for (const ref of refsIn(document.components.schemas)) expect(components).toContain(ref.replace("#/components/schemas/", ""));
  });

  it("documents the job stream's frames and their data as components", () => {
    const stream = document.paths["/app/jobs/{job_id}/stream"].get;
    expect(stream.responses["200"].content["text/event-stream"].schema).toEqual({ $ref: "#/components/schemas/JobStreamFrame" });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(["Job", "JobDelta", "JobStreamFrame"]));
    expect(stream.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "from", in: "query", required: false })]));
  });
});
