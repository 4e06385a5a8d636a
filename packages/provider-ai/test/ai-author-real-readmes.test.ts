import { createAiAuthor, DESIGNS, renderPage, type LandingContent, type PageRequest } from "@reposite/core";
import { REAL_README_CHECKS, REAL_READMES, startFakeOpenAI, type CheckedSite, type FakeOpenAI } from "@reposite/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAILanguageModel } from "../src/index.js";

/**
 * Issue 23: the AI author gets the README's parsed facts (one-liner candidates, sections with their
 * roles, where the README sends visitors) in its prompt, and its answer is held to the checks the
 * README author's sites are (`REAL_README_CHECKS`), through the real OpenAI client and a loopback
 * OpenAI: a page with raw Markdown, a cut hero, a Sponsors card and a section twice is sent back
 * with its problems, and only a page that passes them is returned.
 */

const pocketbase = REAL_READMES.find((entry) => entry.id === "pocketbase")!;

function request(): PageRequest {
  return { kind: "template", type: "website", product: { ...pocketbase.product, language: "Go" }, readme: pocketbase.readme, instructions: null, pages: ["template"], community: false };
}

/** What a careless model writes from the raw README: the faults the issue found. */
const careless: LandingContent = {
  kind: "template",
  meta: { title: "PocketBase", description: "Open Source realtime backend in 1 file." },
  hero: { title: "PocketBase is an open source Go backend that includes", subtitle: "**Realtime** database, auth and files:", primary_cta: { label: "View on GitHub" } },
  features: [
    { title: "Sponsors", body: "Thanks to our sponsors." },
    { title: "Realtime database", body: "An embedded database (SQLite) with realtime subscriptions." },
  ],
  sections: [
    { title: "Realtime database", body: "See [the docs](https://pocketbase.io/docs) and ![logo](logo.png)." },
  ],
  closing: { title: "Get started", cta: { label: "Get started on GitHub" } },
};

/** The same page written from the facts: the whole one-liner, the README's destinations as links. */
const careful: LandingContent = {
  kind: "template",
  meta: { title: "PocketBase — an open source backend in one file", description: "Open Source realtime backend in 1 file." },
  hero: {
    title: "An open source realtime backend in one file",
    subtitle: "PocketBase is an open source Go backend with an embedded database, built-in auth, file storage and an admin dashboard UI.",
    primary_cta: { label: "Download", href: "https://github.com/pocketbase/pocketbase/releases" },
    secondary_cta: { label: "Documentation", href: "https://pocketbase.io/docs" },
  },
  features: [
    { title: "Realtime database", body: "An embedded database (SQLite) with realtime subscriptions." },
    { title: "Auth and files", body: "Built-in auth management and convenient files storage." },
    { title: "Admin dashboard", body: "Manage it all from a simple dashboard UI, documented on [pocketbase.io](https://pocketbase.io)." },
  ],
  sections: [],
  closing: { title: "Get started", cta: { label: "Get started on GitHub" } },
};

let openai: FakeOpenAI | undefined;
afterEach(async () => {
  await openai?.close();
  openai = undefined;
});

function checkedSite(content: LandingContent): CheckedSite {
  const design = DESIGNS.find((candidate) => candidate.type === "website")!;
  const site = { name: "PocketBase", logoUrl: "", colorMode: "" as const, type: "website" as const, repositoryUrl: pocketbase.product.repositoryUrl, appPath: "/app/", pages: ["template" as const], community: false, year: 2025 };
  return { readme: pocketbase.readme, repositoryUrl: pocketbase.product.repositoryUrl, destinations: pocketbase.destinations, pages: { template: content }, html: { template: renderPage(design, content, site) } };
}

describe("the AI author on a real README, through the OpenAI client", () => {
  it("puts the parsed facts in the prompt: one-liner candidates, sections with roles, destinations", async () => {
    openai = await startFakeOpenAI({ replies: [JSON.stringify(careful)] });
    const author = createAiAuthor(createOpenAILanguageModel({ apiKey: "sk-test", baseURL: openai.url, model: "test-model", maxRetries: 0 }));
    await author.write(request(), () => {}, new AbortController().signal);
    const prompt = JSON.stringify(openai.requests[0]!.body);
    expect(prompt).toContain("<readme-facts>");
    expect(prompt).toContain("One-liner candidates");
    expect(prompt).toMatch(/Section \\"[^"\\]+\\" \((overview|features|install|usage|[a-z]+)\)/);
    expect(prompt).toContain("https://pocketbase.io");
    expect(prompt).toContain("Language (of the repository's source files): Go");
  });

  it("sends a page with the faults back with its problems, and returns only one that passes the checks", async () => {
    // The careless page passes the schema: only the content checks can refuse it.
    expect(REAL_README_CHECKS.flatMap((check) => check.problems(checkedSite(careless))).length).toBeGreaterThan(0);
    openai = await startFakeOpenAI({ replies: [JSON.stringify(careless), JSON.stringify(careful)] });
    const author = createAiAuthor(createOpenAILanguageModel({ apiKey: "sk-test", baseURL: openai.url, model: "test-model", maxRetries: 0 }));
    const content = (await author.write(request(), () => {}, new AbortController().signal)) as LandingContent;
    expect(openai.requests).toHaveLength(2);
    const retry = JSON.stringify(openai.requests[1]!.body);
    for (const problem of ["hero.title: the sentence is cut", "Markdown emphasis", "Markdown link or image syntax", "features[0]: \\\"Sponsors\\\"", "shown twice", "ends with \\\":\\\""]) {
      expect(retry).toContain(problem);
    }
    expect(content).toEqual(careful);
    const site = checkedSite(content);
    expect(REAL_README_CHECKS.flatMap((check) => check.problems(site).map((problem) => `${check.name}: ${problem}`))).toEqual([]);
  });

  it("refuses with 502 ai_invalid_output when the retry still breaks the checks", async () => {
    openai = await startFakeOpenAI({ replies: [JSON.stringify(careless)] });
    const author = createAiAuthor(createOpenAILanguageModel({ apiKey: "sk-test", baseURL: openai.url, model: "test-model", maxRetries: 0 }));
    await expect(author.write(request(), () => {}, new AbortController().signal)).rejects.toMatchObject({ status: 502, code: "ai_invalid_output" });
  });
});
