import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModel, TextStreamRequest } from "@reposite/core";
import { streamText } from "ai";
import { abortError, isAbortError, toRepositeError } from "./ai-error.js";

/** Used when no model is configured: small, fast and cheap enough for writing pages. */
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";

export interface OpenAILanguageModelOptions {
  /**
   * The key sent as `Authorization: Bearer …`; the operator's `OPENAI_API_KEY`. A local server that
   * checks none still gets one (any placeholder will do). Never logged, never put in an error.
   */
  apiKey: string;
  /**
   * Where the API lives, up to and including `/v1`; the operator's `OPENAI_BASE_URL`. Any
   * OpenAI-compatible server works, local ones included: Ollama (`http://localhost:11434/v1`),
   * vLLM (`http://localhost:8000/v1`), LM Studio (`http://localhost:1234/v1`), or a gateway.
   * Default `https://api.openai.com/v1`.
   */
  baseURL?: string;
  /**
   * The model to ask, as the server names it; the operator's `REPOSITE_AI_MODEL`. Default
   * `gpt-4.1-mini`, which a local server will not know: name one of its models (`llama3.2`, …).
   */
  model?: string;
  /**
   * Which OpenAI API to call. Default `"chat"` (`POST /chat/completions`): the one every
   * OpenAI-compatible server speaks. `"responses"` (`POST /responses`) is OpenAI's newer API,
   * which few other servers implement; choose it only when talking to OpenAI itself.
   */
  api?: "chat" | "responses";
  /** Replaces `fetch` for every call, for a proxy agent or instrumentation. Default the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request, such as a gateway's own auth or routing headers. */
  headers?: Record<string, string>;
  /** Sampling temperature; lower is more predictable. Default: the server's own (1 at OpenAI). */
  temperature?: number;
  /**
   * How many times a call is retried when the server is unreachable, overloaded (5xx) or rate
   * limiting (429), with exponential backoff from 2 s, honouring `retry-after(-ms)` headers.
   * Only the start of a call is retried, never once text has streamed. Default 2, the AI SDK's
   * own default, so a blip does not fail a page; 0 reports the first failure at once.
   */
  maxRetries?: number;
}

/**
 * A LanguageModel on the AI SDK's OpenAI provider. `streamText` yields the answer's text deltas as
 * they arrive; failures become RepositeErrors (`ai_unavailable`, `ai_rejected`, `ai_rate_limited`),
 * and a cancelled request ends with an AbortError after the HTTP request is dropped, which is how
 * OpenAI and compatible servers learn to stop generating.
 */
export function createOpenAILanguageModel(options: OpenAILanguageModelOptions): LanguageModel {
  const modelId = options.model ?? DEFAULT_OPENAI_MODEL;
  const provider = "openai";
  const openai = createOpenAI({
    // Always passed explicitly: left undefined, the AI SDK would read process.env.OPENAI_API_KEY itself.
    apiKey: options.apiKey,
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
  const model = options.api === "responses" ? openai.responses(modelId) : openai.chat(modelId);
  const context = { provider, modelId, apiKey: options.apiKey };

  return {
    provider,
    modelId,
    async *streamText(request: TextStreamRequest): AsyncGenerator<string> {
      const { signal } = request;
      if (signal?.aborted) throw abortError(signal);
      // Ours to abort as well: a caller leaving the loop early must stop the generation too.
      const stop = new AbortController();
      const abortSignal = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
      let failed = false;
      let failure: unknown;
      try {
        const result = streamText({
          model,
          system: request.system,
          prompt: request.prompt,
          abortSignal,
          maxRetries: options.maxRetries ?? 2,
          ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          // The default logs the error to the console; it reaches the caller as a RepositeError instead.
          onError: () => {},
        });
        // The full stream rather than `textStream`: that one ends quietly on an error or an abort,
        // which would pass a cut-off answer for a complete one.
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") {
            if (part.text !== "") yield part.text;
          } else if (part.type === "error") {
            failed = true;
            failure = part.error;
            break;
          } else if (part.type === "abort") {
            throw abortError(signal);
          }
        }
      } catch (error) {
        if (signal?.aborted || isAbortError(error)) throw abortError(signal);
        failed = true;
        failure = error;
      } finally {
        stop.abort();
      }
      if (signal?.aborted) throw abortError(signal);
      if (failed) throw toRepositeError(failure, context);
    },
  };
}
