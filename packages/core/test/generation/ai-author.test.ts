import { describe, expect, it } from "vitest";
import { RepositeError } from "../../src/errors.js";
import { createAiAuthor, extractJson } from "../../src/generation/ai-author.js";
import type { PageRequest } from "../../src/generation/page-author.js";
import type { FaqContent, LandingContent } from "../../src/generation/page-content.js";
import { describeShape, readmeForPrompt, systemPrompt, userPrompt } from "../../src/generation/prompts.js";
import type { LanguageModel, TextStreamRequest } from "../../src/ports/language-model.js";
import { splitInstructions } from "../../src/generation/instructions.js";
import { CLI_README } from "./readme-fixtures.js";

/** A port double: answers with scripted texts, in pieces, and records what it was asked. */
function scriptedModel(answers: string[], pieceSize = 7) {
  const requests: TextStreamRequest[] = [];
  const model: LanguageModel & { requests: TextStreamRequest[] } = {
    provider: "test",
    modelId: "scripted",
    requests,
    async *streamText(request) {
      requests.push(request);
      const answer = answers[requests.length - 1];
      if (answer === undefined) throw new Error("no scripted answer left");
      for (let i = 0; i < answer.length; i += pieceSize) {
        if (request.signal?.aborted) throw request.signal.reason;
        yield answer.slice(i, i + pieceSize);
        await Promise.resolve();
      }
    },
  };
  return model;
}

const landing: LandingContent = {
  kind: "template",
  meta: { title: "tidyfiles — a tidy Downloads folder", description: "Sorts your Downloads folder by type and date." },
  hero: { title: "A tidy Downloads folder", subtitle: "tidyfiles sorts files into folders by type and date.", primary_cta: { label: "View on GitHub" } },
  features: [
    { title: "Fast", body: "Sorts 10,000 files in under a second." },
    { title: "Safe", body: "A dry run shows every move first." },
    { title: "Rules", body: "Write your own rules in `tidy.yml`." },
  ],
  sections: [{ title: "Install", body: "Install it with npm.", code: "npm install -g tidyfiles" }],
  closing: { title: "Get started", body: "The source is on GitHub.", cta: { label: "Get started on GitHub" } },
};
const valid = JSON.stringify(landing);

function request(overrides: Partial<PageRequest> = {}): PageRequest {
  return {
    kind: "template",
    type: "website",
    product: {
      name: "tidyfiles",
      description: "Sort your downloads",
      repositoryUrl: "https://github.com/acme/tidyfiles",
      topics: ["cli", "files"],
      defaultBranch: "main",
    },
    readme: CLI_README,
    instructions: null,
    pages: ["template", "about", "faq"],
    community: false,
    ...overrides,
  };
}

async function write(model: LanguageModel, overrides: Partial<PageRequest> = {}, signal = new AbortController().signal) {
  const deltas: string[] = [];
  const content = await createAiAuthor(model).write(request(overrides), (delta) => deltas.push(delta), signal);
  return { content, deltas };
}

describe("AI author", () => {
  it("returns a valid first answer and streams the model's text through onText", async () => {
    const model = scriptedModel([valid]);
    const { content, deltas } = await write(model);
    expect(content).toEqual(landing);
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.join("")).toBe(valid);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.maxOutputTokens).toBeGreaterThan(0);
  });

  it("accepts JSON in a ```json fence after some prose", async () => {
    const answer = `Here is the page:\n\n\`\`\`json\n${JSON.stringify(landing, null, 2)}\n\`\`\`\nHope it helps {:}`;
    const { content, deltas } = await write(scriptedModel([answer]));
    expect(content).toEqual(landing);
    expect(deltas.join("")).toBe(answer);
  });

  it("retries once, naming the problems, when the first answer fails the schema", async () => {
    const broken = { ...landing, hero: { ...landing.hero, title: "T".repeat(95) }, features: [] };
    const first = JSON.stringify(broken);
    const model = scriptedModel([first, valid]);
    const { content, deltas } = await write(model);
    expect(content).toEqual(landing);
    expect(deltas.join("")).toBe(`${first}\n${valid}`);
    expect(model.requests).toHaveLength(2);
    const retry = model.requests[1]!.prompt;
    expect(retry).toContain(model.requests[0]!.prompt);
    expect(retry).toContain("hero.title: Too big: expected string to have <=90 characters (it has 95)");
    expect(retry).toContain("features: Too small: expected array to have >=1 items");
    expect(retry).toContain(first);
    expect(model.requests[1]!.system).toBe(model.requests[0]!.system);
  });

  it("sends back a hero that is a notice, a thanks line or a user's quote, as the README author never writes one", async () => {
    const quoted = { ...landing, hero: { ...landing.hero, title: "Microsoft uses tidyfiles in Rush repos", subtitle: "Special thanks to our sponsors." } };
    const model = scriptedModel([JSON.stringify(quoted), valid]);
    const { content } = await write(model);
    expect(content).toEqual(landing);
    const retry = model.requests[1]!.prompt;
    expect(retry).toContain("hero.title: is a notice, a sponsor or thanks line, the README about itself, a quote or a pointer to what follows");
    expect(retry).toContain("hero.subtitle: is a notice, a sponsor or thanks line");
  });

  it("retries when the first answer is not JSON", async () => {
    const model = scriptedModel(['{"kind": "template", "meta": {', valid]);
    await expect(write(model)).resolves.toMatchObject({ content: landing });
    expect(model.requests[1]!.prompt).toMatch(/not complete: the answer stopped before its closing brace/);
  });

  it("fails with 502 ai_invalid_output after two invalid answers", async () => {
    const model = scriptedModel(["Sorry, I cannot do that.", '{"kind": "faq"}']);
    const error = await write(model).catch((caught: unknown) => caught);
    expect(RepositeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 502, code: "ai_invalid_output" });
    expect((error as RepositeError).details?.problems).toContain('kind: Invalid input: expected "template"');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.prompt).toContain("The answer holds no JSON object.");
  });

  it("checks the answer against the requested kind's schema", async () => {
    const faq: FaqContent = {
      kind: "faq",
      meta: { title: "tidyfiles FAQ", description: "Questions about tidyfiles." },
      title: "Questions",
      intro: "Answers about tidyfiles.",
      items: [
        { question: "What is it?", answer: "A tool that sorts files." },
        { question: "Is it free?", answer: "It is MIT licensed." },
        { question: "Which systems?", answer: "Linux, macOS and Windows." },
      ],
    };
    const model = scriptedModel([valid, JSON.stringify(faq)]);
    const { content } = await write(model, { kind: "faq" });
    expect(content).toEqual(faq);
  });

  it("puts the README, the facts and only this page's wishes in the prompts", async () => {
    const wishes = splitInstructions("Make the hero bold. The FAQ should mention Windows. About: name the team.");
    const model = scriptedModel([valid]);
    await write(model, { instructions: wishes.template ?? null });
    const { system, prompt } = model.requests[0]!;
    expect(prompt).toContain("A fast command-line tool that sorts your **Downloads** folder");
    expect(prompt).toContain("npm install -g tidyfiles");
    expect(prompt).toContain("- Repository: https://github.com/acme/tidyfiles");
    expect(prompt).toContain("- Description: Sort your downloads");
    expect(prompt).toContain("- Topics: cli, files");
    expect(prompt).toContain("- Default branch: main");
    expect(prompt).toContain("Other pages of the site: About page, FAQ page.");
    expect(prompt).toContain("<wishes>\nMake the hero bold.\n</wishes>");
    expect(prompt).not.toMatch(/Windows\.|name the team/);
    expect(system).toContain('"hero"');
    expect(system).toContain('"title": text, at most 90 characters');
    expect(system).toContain("View on GitHub");
    expect(system).toMatch(/Do not invent numbers/);
  });

  it("leaves the wishes out of the sign-in page's prompt", () => {
    expect(userPrompt(request({ kind: "auth", instructions: "Make it pink." }))).not.toContain("pink");
  });

  it("cuts a long README to the budget and says so", () => {
    const readme = `# Big\n\n${"A line of the README.\n".repeat(3000)}`;
    const prompt = userPrompt(request({ readme }), 1000);
    expect(prompt).toMatch(/README \(the first \d{3} of [\d,]+ characters; the rest is left out\):/);
    expect(prompt.length).toBeLessThan(3000);
    expect(readmeForPrompt(readme, 1000).truncated).toBe(true);
    expect(userPrompt(request({ readme: null }))).toContain("The repository has no README");
  });

  it("asks for labels that fit the project type", () => {
    expect(systemPrompt("template", "saas")).toContain('"Open the app"');
    expect(systemPrompt("template", "saas")).toContain('"Start now"');
    expect(systemPrompt("template", "landing")).toContain('"Get started on GitHub"');
  });

  it("writes every kind's shape with the schema's limits", () => {
    expect(describeShape("about")).toContain('"facts": [ at most 8 items, each {');
    expect(describeShape("faq")).toContain('"items": [ 1 to 20 items, each {');
    expect(describeShape("auth")).toContain('"sign_in_label": text, at most 30 characters');
    expect(describeShape("template")).toContain('"secondary_cta" (optional)');
  });

  it("passes the signal to the model and lets an abort through unchanged", async () => {
    const controller = new AbortController();
    const model = scriptedModel([valid], 3);
    const deltas: string[] = [];
    const pending = createAiAuthor(model).write(
      request(),
      (delta) => {
        deltas.push(delta);
        if (deltas.length === 5) controller.abort();
      },
      controller.signal,
    );
    const error = await pending.catch((caught: unknown) => caught);
    expect(controller.signal.aborted).toBe(true);
    expect(error).toBe(controller.signal.reason);
    expect(model.requests[0]!.signal).toBe(controller.signal);
    expect(model.requests).toHaveLength(1);
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    const model = scriptedModel([valid]);
    await expect(write(model, {}, controller.signal)).rejects.toThrow("stop");
    expect(model.requests).toHaveLength(0);
  });
});

describe("extractJson", () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['  \n{"a":"}"}\nthanks', { a: "}" }],
    ['Sure! {"a":{"b":[1,2]}}', { a: { b: [1, 2] } }],
    ['```\n{"a":1}\n```', { a: 1 }],
    ['I use {braces} in prose. {"a":"x\\"}"}', { a: 'x"}' }],
  ])("%s", (answer, value) => {
    expect(extractJson(answer)).toEqual({ ok: true, value });
  });

  it("explains what is wrong", () => {
    expect(extractJson("no json")).toEqual({ ok: false, problem: "The answer holds no JSON object." });
    expect(extractJson('{"a": 1,}')).toMatchObject({ ok: false, problem: expect.stringMatching(/^The answer is not valid JSON: /) });
  });
});
