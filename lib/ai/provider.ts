import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, type LanguageModel } from "ai";
import type { AiSettings } from "@/lib/config/settings";

/** A model object (not a gateway id string). */
export type SummaryModel = Exclude<LanguageModel, string>;

/** Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the client wants one. */
const PLACEHOLDER_API_KEY = "not-needed";

/**
 * The configured model, or null for the built-in digest.
 * - OPENAI_API_KEY alone: OpenAI's Responses API.
 * - OPENAI_BASE_URL (with or without a key): that server's Chat Completions
 *   endpoint, which is what OpenAI-compatible servers speak.
 * - neither: null.
 */
export function resolveSummaryModel(settings: AiSettings): SummaryModel | null {
  if (!settings.apiKey && !settings.baseURL) return null;
  const provider = createOpenAI({
    apiKey: settings.apiKey ?? PLACEHOLDER_API_KEY,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    fetch: fetchFailingFastOn429,
  });
  return settings.baseURL ? provider.chat(settings.model) : provider.responses(settings.model);
}

/** The X-Summary-Source value for a model. */
export function modelSource(model: SummaryModel): `model:${string}` {
  return `model:${model.modelId}`;
}

/**
 * A provider that is rate limiting us will not answer within the summary's
 * deadline: the SDK would wait out its Retry-After (up to a minute) and retry.
 * Refused at once instead, so the dashboard gets the built-in digest and says
 * why; server errors (5xx) are still retried.
 */
async function fetchFailingFastOn429(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status !== 429) return response;
  throw new APICallError({
    message: "The AI provider is rate limiting requests (HTTP 429).",
    url: String(input instanceof Request ? input.url : input),
    requestBodyValues: {},
    statusCode: 429,
    responseHeaders: Object.fromEntries(response.headers),
    responseBody: await response.text().catch(() => ""),
    isRetryable: false,
  });
}
