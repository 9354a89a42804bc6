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
    fetch: providerFetch,
  });
  return settings.baseURL ? provider.chat(settings.model) : provider.responses(settings.model);
}

/** The X-Summary-Source value for a model. */
export function modelSource(model: SummaryModel): `model:${string}` {
  return `model:${model.modelId}`;
}

/** At most this much of a provider's answer is read: a summary is a few KiB; a runaway answer is cut, never read whole. */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** A provider's answer went past MAX_ANSWER_BYTES: the stream was cut there. */
export class AnswerTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The AI provider's answer is larger than ${limitBytes} bytes; it was not read further.`);
    this.name = "AnswerTooLargeError";
  }
}

/**
 * The provider's fetch: at most MAX_ANSWER_BYTES of any answer are read
 * (the body stream is cut there and the connection closed), and a 429 is
 * refused at once: a provider that is rate limiting us will not answer
 * within the summary's deadline (the SDK would wait out its Retry-After, up
 * to a minute, and retry), so the dashboard gets the built-in digest and
 * says why. Server errors (5xx) are still retried by the SDK.
 */
async function providerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = capBody(await fetch(input, init), MAX_ANSWER_BYTES);
  if (response.status !== 429) return response;
  throw new APICallError({
    message: "The AI provider is rate limiting requests (HTTP 429).",
    url: String(input instanceof Request ? input.url : input),
    requestBodyValues: {},
    statusCode: 429,
    responseHeaders: Object.fromEntries(response.headers),
    responseBody: "",
    isRetryable: false,
  });
}

/** The response with a body that errors (AnswerTooLargeError) and cancels the download past `maxBytes`. */
export function capBody(response: Response, maxBytes: number): Response {
  const body = response.body;
  if (body === null || response.status === 204 || response.status === 205 || response.status === 304) return response;
  const declared = Number(response.headers.get("content-length") ?? NaN);
  const reader = body.getReader();
  let read = 0;
  const capped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (declared > maxBytes) {
        await reader.cancel().catch(() => {});
        controller.error(new AnswerTooLargeError(maxBytes));
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      read += value.byteLength;
      if (read > maxBytes) {
        await reader.cancel().catch(() => {});
        controller.error(new AnswerTooLargeError(maxBytes));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
}
