import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../src/index.js";

// The reference people read (docs/http-api.md, served at /docs/api) and the contract the server
// runs on must not drift apart: an error code an operation names is a code the reference explains.
const reference = readFileSync(new URL("../../../docs/http-api.md", import.meta.url), "utf8");
/** Every word in a code span: codes are written `not_found`, `422 not_in_plan`, `quota_reached, not_bundleable`. */
const documented = new Set([...reference.matchAll(/`([^`\n]+)`/g)].flatMap((span) => span[1]!.match(/[a-z][a-z0-9_]*/g) ?? []));

describe("error codes of the contract", () => {
  it("finds codes in the reference", () => {
    expect(documented).toContain("invalid_request");
  });

  it.each(OPERATIONS.filter((op) => op.errors?.length).map((op) => [op.id, op.errors!] as const))(
    "%s: every code it may answer is in docs/http-api.md",
    (_id, codes) => {
      expect(codes.filter((code) => !documented.has(code))).toEqual([]);
    },
  );
});
