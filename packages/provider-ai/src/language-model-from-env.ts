import { RepositeError, type LanguageModel } from "@reposite/core";
import { createOpenAILanguageModel, DEFAULT_OPENAI_MODEL, type OpenAILanguageModelOptions } from "./openai-language-model.js";

/**
 * Sent as the bearer token when only `OPENAI_BASE_URL` is set: local servers (Ollama, vLLM,
 * LM Studio) usually check no key, but OpenAI clients always send one.
 */
export const NO_API_KEY = "no-key";

/** The variables read, as `process.env` has them. */
export type LanguageModelEnv = Record<string, string | undefined>;

/**
 * The operator's model, configured by environment variables, or undefined when none is (then
 * pages are written without one):
 * - `OPENAI_API_KEY`: the key; optional when `OPENAI_BASE_URL` points at a server that needs none.
 * - `OPENAI_BASE_URL`: an OpenAI-compatible server, for example `http://localhost:11434/v1` for Ollama.
 * - `REPOSITE_AI_MODEL`: the model name; default `gpt-4.1-mini`.
 * Blank values count as unset. `extra` adds options the environment does not carry (fetch, headers, …).
 */
export function languageModelFromEnv(
  env: LanguageModelEnv,
  extra: Omit<OpenAILanguageModelOptions, "apiKey" | "baseURL" | "model"> = {},
): LanguageModel | undefined {
  const apiKey = value(env.OPENAI_API_KEY);
  const baseURL = value(env.OPENAI_BASE_URL);
  if (apiKey === undefined && baseURL === undefined) return undefined;
  if (baseURL !== undefined && !isHttpUrl(baseURL)) {
    throw new RepositeError(
      500,
      "[ai] OPENAI_BASE_URL is not an http(s) URL; expected the API root, such as https://api.openai.com/v1 or http://localhost:11434/v1",
      "ai_config_invalid",
    );
  }
  return createOpenAILanguageModel({
    ...extra,
    apiKey: apiKey ?? NO_API_KEY,
    ...(baseURL !== undefined ? { baseURL } : {}),
    model: value(env.REPOSITE_AI_MODEL) ?? DEFAULT_OPENAI_MODEL,
  });
}

function value(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
