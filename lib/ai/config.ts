import { envInt } from "@/lib/config/env";

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
    timeoutMs: envInt("AI_TIMEOUT_MS", env),
    maxOutputTokens: envInt("AI_MAX_OUTPUT_TOKENS", env),
    maxRetries: envInt("AI_MAX_RETRIES", env),
    promptBudgetChars: envInt("AI_PROMPT_BUDGET_CHARS", env),
    cacheTtlMs: envInt("AI_CACHE_TTL_MS", env),
    rateLimitPerMinute: envInt("AI_RATE_LIMIT_PER_MINUTE", env),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

