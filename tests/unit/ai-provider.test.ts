import { describe, expect, it } from "vitest";
import { modelSource, resolveSummaryModel } from "@/lib/ai/provider";
import { parseSettings } from "@/lib/config/settings";

const ai = (env: Record<string, string | undefined>) => parseSettings(env).settings!.ai;

describe("resolveSummaryModel", () => {
  it("is null (built-in digest) with no provider configured", () => {
    expect(resolveSummaryModel(ai({}))).toBeNull();
    expect(resolveSummaryModel(ai({ OPENAI_API_KEY: "  ", OPENAI_BASE_URL: "" }))).toBeNull();
  });

  it("uses OpenAI's Responses API with a key alone", () => {
    const model = resolveSummaryModel(ai({ OPENAI_API_KEY: "sk-test" }))!;
    expect(model.provider).toBe("openai.responses");
    expect(model.modelId).toBe("gpt-4.1-mini");
    expect(modelSource(model)).toBe("model:gpt-4.1-mini");
  });

  it("uses Chat Completions with a base URL, with or without a key", () => {
    for (const env of [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, { OPENAI_BASE_URL: "http://gw/v1", OPENAI_API_KEY: "k" }]) {
      const model = resolveSummaryModel(ai({ ...env, AI_MODEL: "llama3.1:8b" }))!;
      expect(model.provider).toBe("openai.chat");
      expect(modelSource(model)).toBe("model:llama3.1:8b");
    }
  });
});
