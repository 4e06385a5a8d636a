import type { InjectionToken } from "tsyringe";

export interface TextStreamRequest {
  /** Standing instructions: role, rules, the output format. */
  system: string;
  /** The task and its material (README, repository facts, wishes). */
  prompt: string;
  /** Cancels the request: the stream ends with an AbortError and the provider stops generating. */
  signal?: AbortSignal;
  /** Upper bound of the answer's length. */
  maxOutputTokens?: number;
}

/**
 * A model that writes text. Optional: with none configured, pages are written by the README
 * author. The provider package (`@reposite/provider-ai`) implements it on the AI SDK.
 */
export interface LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  /** The answer as it is written, piece by piece. */
  streamText(request: TextStreamRequest): AsyncIterable<string>;
}

export const LANGUAGE_MODEL: InjectionToken<LanguageModel> = Symbol.for("reposite.LanguageModel");
