import { readFileSync, writeFileSync } from "node:fs";
import {
  BARE_BASE_IMAGES,
  BUILD_MODES,
  generationModeSchema,
  OPERATIONS,
  PAGE_KINDS,
  PLAN_PAGES,
} from "@reposite/contract";
import { expect, it } from "vitest";

// The SDK's runtime does not load the contract (or zod): what it needs of it at runtime (each
// operation's method and path, the choices clients offer) is copied into src/generated/contract.ts.
// This test writes that copy from the contract and fails when the checked-in one is stale.
const FILE = new URL("../src/generated/contract.ts", import.meta.url);

function render(): string {
  const list = (values: readonly string[]) => `[${values.map((value) => JSON.stringify(value)).join(", ")}] as const`;
  const operations = OPERATIONS.map((op) => `  ${JSON.stringify(op.id)}: { method: ${JSON.stringify(op.method)}, path: ${JSON.stringify(op.path)} },`);
  return [
    "// Generated from @reposite/contract by packages/sdk/test/contract-generated.test.ts: do not edit.",
    "// Write it again with `npm run generate -w @reposite/sdk`; that test fails while it is stale.",
    "",
    "/** Every operation of the API by its id: its method and path (`:name` placeholders). */",
    "export const API_OPERATIONS = {",
    ...operations,
    "} as const;",
    "",
    "/** The project types a plan makes. */",
    `export const PROJECT_TYPES = ${list(generationModeSchema.options)};`,
    "/** Every page a site can have; `template` is the landing page. */",
    `export const PAGE_KINDS = ${list(PAGE_KINDS)};`,
    "/** The pages a plan may have besides the landing page. */",
    `export const PLAN_PAGES = ${list(PLAN_PAGES)};`,
    "/** How an app is built. */",
    `export const BUILD_MODES = ${list(BUILD_MODES)};`,
    "/** The images a bare box can start from. */",
    `export const BARE_BASE_IMAGES = ${list(BARE_BASE_IMAGES)};`,
    "",
  ].join("\n");
}

it("src/generated/contract.ts is what the contract makes", () => {
  const expected = render();
  if (process.env.REPOSITE_WRITE_GENERATED === "1") writeFileSync(FILE, expected);
  expect(readFileSync(FILE, "utf8"), "stale: run npm run generate -w @reposite/sdk").toBe(expected);
});
