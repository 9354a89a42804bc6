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
  it("has the documented defaults and ignores malformed numbers", () => {
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
    const s = aiSettings({ AI_TIMEOUT_MS: "5s", AI_RATE_LIMIT_PER_MINUTE: "0", AI_CACHE_TTL_MS: "-1", AI_PROMPT_BUDGET_CHARS: "10" });
    expect(s.timeoutMs).toBe(20_000);
    expect(s.rateLimitPerMinute).toBe(0);
    expect(s.cacheTtlMs).toBe(60_000);
    expect(s.promptBudgetChars).toBe(24_000);
  });
});
