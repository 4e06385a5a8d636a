import type { LanguageModel } from "@reposite/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startRepositeUnderTest, textOf, type McpSession, type RepositeUnderTest } from "./reposite-under-test.js";

// A server whose language model fails every request: the generation job ends `error`, and
// generate_site says so as a tool error instead of answering pages that were not written.
const failingModel: LanguageModel = {
  provider: "test",
  modelId: "always-fails",
  async *streamText() {
    throw new Error("The model is overloaded.");
  },
};

let reposite: RepositeUnderTest;
let mcp: McpSession;

beforeAll(async () => {
  reposite = await startRepositeUnderTest(
    [{ owner: "acme", name: "notebook", description: "Notes for data science", topics: [], readme: "# Notebook\n\nNotes that run.\n" }],
    { languageModel: failingModel },
  );
  mcp = await reposite.connect({ REPOSITE_URL: reposite.server.url, REPOSITE_TOKEN: await reposite.tokenFor("ada@example.com") });
});
afterAll(async () => {
  await reposite?.close();
});

it("answers a page that could not be written as a tool error naming the page, with the chain so far", async () => {
  const created = await mcp.call("create_project", { repository: "https://github.com/acme/notebook" });
  const siteId = (created.structuredContent as { project: { id: string } }).project.id;
  const generated = await mcp.call("generate_site", { site_id: siteId, mode: "website", pages: ["about"] });
  expect(generated.isError, textOf(generated)).toBe(true);
  expect(generated.structuredContent).toMatchObject({
    error: { code: "generation_error", details: { site_id: siteId, pages: [{ kind: "template", status: "error", version_id: null }] } },
  });
  expect(textOf(generated)).toMatch(/^Reposite error generation_error: Writing the template page ended error: .+/);
});
