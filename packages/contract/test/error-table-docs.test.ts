import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_LIST, ERROR_CODES, OPERATIONS, openApiDocument, statusesOf, type ErrorCode } from "../src/index.js";

// docs/http-api.md's table of every code is written from the contract's table; this test fails
// when they differ (REPOSITE_WRITE_GENERATED=1 writes it again).
const DOCS = new URL("../../../docs/http-api.md", import.meta.url);
const START = "<!-- error-codes:start -->\n";
const END = "<!-- error-codes:end -->";

function table(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => `| ${statusesOf(code).join(", ")} | \`${code}\` | ${ERROR_CODES[code].description.replaceAll("|", "\\|")} |`);
  return ["| status | code | when |", "|---|---|---|", ...rows, ""].join("\n");
}

describe("the error codes of the reference", () => {
  it("docs/http-api.md lists every code of the contract's table, as the table says", () => {
    const docs = readFileSync(DOCS, "utf8");
    const start = docs.indexOf(START);
    const end = docs.indexOf(END);
    expect(start, "the markers of the generated table").toBeGreaterThan(0);
    let written = docs.slice(start + START.length, end);
    if (process.env.REPOSITE_WRITE_GENERATED === "1") {
      writeFileSync(DOCS, docs.slice(0, start + START.length) + table() + docs.slice(end));
      written = table();
    }
    expect(written, "stale: REPOSITE_WRITE_GENERATED=1 npx vitest run packages/contract/test/error-table-docs.test.ts").toBe(table());
  });

  it("/openapi.json gives the codes as the Error schema's enum", () => {
    const document = openApiDocument(OPERATIONS, { version: "test" }) as { components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> } };
    expect(document.components.schemas.Error!.properties.code!.enum).toEqual(ERROR_CODE_LIST);
  });

  it("no code is listed twice, and each says when it is answered", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(info.description.length, code).toBeGreaterThan(15);
      expect([400, 401, 402, 403, 404, 405, 409, 410, 413, 415, 422, 429, 500, 502, 503]).toEqual(expect.arrayContaining([...statusesOf(code as ErrorCode)]));
    }
  });
});
