import type { z } from "zod";
import { RepositeError } from "../errors.js";
import type { LanguageModel } from "../ports/language-model.js";
import { contentProblems } from "./content-checks.js";
import { PAGE_SCHEMAS, type PageAuthor } from "./page-author.js";
import type { PageContent } from "./page-content.js";
import { README_PROMPT_BUDGET, retryPrompt, systemPrompt, userPrompt } from "./prompts.js";

export interface AiAuthorOptions {
  /** Upper bound of one answer; a landing page in JSON needs about 2,000 tokens. */
  maxOutputTokens?: number;
  /** README characters a prompt carries. */
  readmeBudget?: number;
}

/**
 * The page author with a language model: the model writes the page as JSON, which is checked
 * against the page kind's schema and the content checks every page is held to (`contentProblems`:
 * no raw markup, no hanging colon or cut hero, nothing from Sponsors/Contributing/License …, no
 * section twice, no server path). An answer that is not valid JSON or fails either gets one
 * retry with the exact problems listed; a second failure is `502 ai_invalid_output`.
 * Every piece of the model's answer goes to `onText` as it arrives (attempts separated by "\n").
 */
export function createAiAuthor(model: LanguageModel, options: AiAuthorOptions = {}): PageAuthor {
  const maxOutputTokens = options.maxOutputTokens ?? 4096;
  const budget = options.readmeBudget ?? README_PROMPT_BUDGET;
  return {
    name: "ai",
    async write(request, onText, signal) {
      const schema = PAGE_SCHEMAS[request.kind] as z.ZodType<PageContent>;
      const system = systemPrompt(request.kind, request.type);
      const prompt = userPrompt(request, budget);
      let problems: string[] = [];
      let previous = "";
      for (let attempt = 0; attempt < 2; attempt++) {
        signal.throwIfAborted();
        if (attempt > 0) onText("\n");
        let answer = "";
        const stream = model.streamText({
          system,
          prompt: attempt === 0 ? prompt : retryPrompt(prompt, previous, problems),
          signal,
          maxOutputTokens,
        });
        for await (const delta of stream) {
          answer += delta;
          onText(delta);
        }
        // A provider that ends its stream quietly on abort must not turn the abort into a page.
        signal.throwIfAborted();
        const checked = checkAnswer(answer, schema);
        // A page that fits the schema is still held to what any author's page must be (content-checks.ts).
        const held = checked.ok ? contentProblems(checked.content, request) : checked.problems;
        if (checked.ok && held.length === 0) return checked.content;
        problems = held;
        previous = answer;
      }
      throw new RepositeError(
        502,
        `The AI model wrote no valid ${request.kind} page after a retry: ${problems.slice(0, 3).join("; ")}`,
        "ai_invalid_output",
        { problems: problems.slice(0, 10) },
      );
    },
  };
}

export type CheckedAnswer = { ok: true; content: PageContent } | { ok: false; problems: string[] };

/** Parses a model's answer and checks it against the schema; problems are written for the model to fix. */
export function checkAnswer(answer: string, schema: z.ZodType<PageContent>): CheckedAnswer {
  const json = extractJson(answer);
  if (!json.ok) return { ok: false, problems: [json.problem] };
  const result = schema.safeParse(json.value);
  if (result.success) return { ok: true, content: result.data };
  return {
    ok: false,
    problems: result.error.issues.slice(0, 20).map((issue) => {
      const path = formatPath(issue.path);
      const value = valueAt(json.value, issue.path);
      const length = issue.code === "too_big" && typeof value === "string" ? ` (it has ${value.length})` : "";
      return `${path || "(the whole answer)"}: ${issue.message}${length}`;
    }),
  };
}

/** `["features", 2, "body"]` → `features[2].body`. */
function formatPath(path: PropertyKey[]): string {
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : `${index ? "." : ""}${String(part)}`)).join("");
}

function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let current = value;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/**
 * Finds the JSON object in a model's answer: inside a ``` fence when there is one, else the first
 * balanced `{…}` that parses, so leading or trailing prose is tolerated.
 */
export function extractJson(answer: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const sources = [...answer.matchAll(/```[ \t]*[\w-]*[ \t]*\n([\s\S]*?)(?:\n[ \t]*```|$)/g)].map((match) => match[1]!);
  sources.push(answer);
  let firstError: string | null = null;
  let unfinished = false;
  for (const source of sources) {
    let start = source.indexOf("{");
    for (let tries = 0; start >= 0 && tries < 20; tries++) {
      const end = closingBrace(source, start);
      if (end < 0) {
        unfinished = true;
        break;
      }
      try {
        return { ok: true, value: JSON.parse(source.slice(start, end + 1)) };
      } catch (error) {
        firstError ??= (error as Error).message;
      }
      start = source.indexOf("{", start + 1);
    }
  }
  if (firstError) return { ok: false, problem: `The answer is not valid JSON: ${firstError}.` };
  if (unfinished) return { ok: false, problem: "The JSON object is not complete: the answer stopped before its closing brace. Write a shorter answer." };
  return { ok: false, problem: "The answer holds no JSON object." };
}

/** Index of the brace closing the one at `start`, skipping strings; -1 when it never closes. */
function closingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth++;
    else if (char === "}" && --depth === 0) return i;
  }
  return -1;
}
