import type { LanguageModel } from "../../ports/language-model.js";
import { dockerfileFromAnswer, MAX_FIXED_DOCKERFILE_CHARS, type DockerfileAnswer } from "./dockerfile-answer.js";
import { FIX_SYSTEM_PROMPT } from "./fix-prompt.js";

/** Enough for any Dockerfile worth building, with room for a model that talks first. */
const MAX_OUTPUT_TOKENS = 8_000;

/**
 * Asks the model for a corrected Dockerfile with `prompt` (already masked) and reads it out of the
 * answer. An answer that runs far past a Dockerfile's size is cut off and refused.
 */
export async function askModelForDockerfile(model: LanguageModel, prompt: string, signal: AbortSignal): Promise<DockerfileAnswer> {
  let answer = "";
  for await (const piece of model.streamText({ system: FIX_SYSTEM_PROMPT, prompt, signal, maxOutputTokens: MAX_OUTPUT_TOKENS })) {
    answer += piece;
    if (answer.length > 4 * MAX_FIXED_DOCKERFILE_CHARS) {
      return { refused: "The model's answer was far longer than a Dockerfile, so it was cut off and nothing was built." };
    }
  }
  return dockerfileFromAnswer(answer);
}
