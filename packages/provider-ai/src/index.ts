export {
  createOpenAILanguageModel,
  DEFAULT_OPENAI_MODEL,
  type OpenAILanguageModelOptions,
} from "./openai-language-model.js";
export { languageModelFromEnv, NO_API_KEY, type LanguageModelEnv } from "./language-model-from-env.js";
