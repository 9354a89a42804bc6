/**
 * AI summary settings, read from the environment on every call (not at module
 * load) so that an operator's change takes effect on restart and tests can
 * switch providers between requests. Defaults are documented in docs/ai.md.
 */
export const DEFAULT_AI_MODEL = "gpt-4.1-mini";

export type AiSettings = {
  /** OPENAI_API_KEY; never logged, never in a response. */
  apiKey: string | undefined;
  /** OPENAI_BASE_URL: any OpenAI-compatible server (Ollama, vLLM, a gateway). */
  baseURL: string | undefined;
  model: string;
  timeoutMs: number;
  maxOutputTokens: number;
  maxRetries: number;
  /** Character budget of the event data put in the prompt. */
  promptBudgetChars: number;
  /** Identical request, no new events: answered from memory for this long. 0 turns the cache off. */
  cacheTtlMs: number;
  /** Summaries per user per minute. 0 turns the limit off. */
  rateLimitPerMinute: number;
};

export function aiSettings(env: Readonly<Record<string, string | undefined>> = process.env): AiSettings {
  return {
    apiKey: nonEmpty(env.OPENAI_API_KEY),
    baseURL: nonEmpty(env.OPENAI_BASE_URL),
    model: nonEmpty(env.AI_MODEL) ?? DEFAULT_AI_MODEL,
    timeoutMs: integer(env.AI_TIMEOUT_MS, 20_000, 1, 600_000),
    maxOutputTokens: integer(env.AI_MAX_OUTPUT_TOKENS, 800, 50, 32_000),
    maxRetries: integer(env.AI_MAX_RETRIES, 1, 0, 5),
    promptBudgetChars: integer(env.AI_PROMPT_BUDGET_CHARS, 24_000, 2_000, 400_000),
    cacheTtlMs: integer(env.AI_CACHE_TTL_MS, 60_000, 0, 3_600_000),
    rateLimitPerMinute: integer(env.AI_RATE_LIMIT_PER_MINUTE, 10, 0, 100_000),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** A malformed or out-of-range value falls back to the default rather than breaking the endpoint. */
function integer(value: string | undefined, fallback: number, min: number, max: number): number {
  const trimmed = value?.trim();
  if (!trimmed || !/^\d+$/.test(trimmed)) return fallback;
  const n = Number(trimmed);
  return n >= min && n <= max ? n : fallback;
}
