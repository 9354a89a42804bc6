import { describe, expect, it } from "vitest";
import { aiSettings, DEFAULT_AI_MODEL } from "@/lib/ai/config";
import { modelSource, resolveSummaryModel } from "@/lib/ai/provider";

describe("resolveSummaryModel", () => {
  it("is null (built-in digest) with no provider configured", () => {
    expect(resolveSummaryModel(aiSettings({}))).toBeNull();
    expect(resolveSummaryModel(aiSettings({ OPENAI_API_KEY: "  ", OPENAI_BASE_URL: "" }))).toBeNull();
  });

  it("uses OpenAI's Responses API with a key alone", () => {
    const model = resolveSummaryModel(aiSettings({ OPENAI_API_KEY: "sk-test" }))!;
    expect(model.provider).toBe("openai.responses");
    expect(model.modelId).toBe(DEFAULT_AI_MODEL);
    expect(modelSource(model)).toBe(`model:${DEFAULT_AI_MODEL}`);
  });

  it("uses Chat Completions with a base URL, with or without a key", () => {
    for (const env of [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, { OPENAI_BASE_URL: "http://gw/v1", OPENAI_API_KEY: "k" }]) {
      const model = resolveSummaryModel(aiSettings({ ...env, AI_MODEL: "llama3.1:8b" }))!;
      expect(model.provider).toBe("openai.chat");
      expect(modelSource(model)).toBe("model:llama3.1:8b");
    }
  });
});

describe("aiSettings", () => {
  it("has the documented defaults and refuses malformed numbers, naming the variable", () => {
    expect(aiSettings({})).toEqual({
      apiKey: undefined,
      baseURL: undefined,
      model: "gpt-4.1-mini",
      timeoutMs: 20_000,
      maxOutputTokens: 800,
      maxRetries: 1,
      promptBudgetChars: 24_000,
      cacheTtlMs: 60_000,
      rateLimitPerMinute: 10,
    });
    expect(aiSettings({ AI_RATE_LIMIT_PER_MINUTE: "0", AI_TIMEOUT_MS: " 5000 " })).toMatchObject({ rateLimitPerMinute: 0, timeoutMs: 5000 });
    expect(() => aiSettings({ AI_TIMEOUT_MS: "5s" })).toThrow(/AI_TIMEOUT_MS must be a whole number/);
    expect(() => aiSettings({ AI_CACHE_TTL_MS: "-1" })).toThrow(/AI_CACHE_TTL_MS/);
    expect(() => aiSettings({ AI_PROMPT_BUDGET_CHARS: "10" })).toThrow(/from 2000 to 400000/);
  });
});
