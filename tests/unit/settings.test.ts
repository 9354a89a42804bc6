
import { afterEach, describe, expect, it, vi } from "vitest";
import { fromSettings, parseSettings, resetSettings, SETTING_SPECS, settings, settingsProblems } from "@/lib/config/settings";

const parsed = (env: Record<string, string>) => parseSettings(env).settings!;

describe("settings", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    resetSettings();
  });

  it("use the documented default for every unset or blank variable", () => {
    const defaults = parsed({});
    const blank = parsed(Object.fromEntries(Object.keys(SETTING_SPECS).map((name) => [name, "  "])));
    expect(blank).toEqual(defaults);
    expect(defaults.ingest).toEqual({
      ratePerSecond: 1000,
      maxBodyBytes: 262_144,
      maxBatchBodyBytes: 1_048_576,
      maxDecodedBodyBytes: 1_048_576,
      maxBatchDecodedBodyBytes: 20_971_520,
      maxConcurrentWrites: 4,
    });
    expect(defaults.sentry).toEqual({ maxBodyBytes: 20_971_520, maxDecodedBodyBytes: 20_971_520, clientRatePerSecond: 50 });
    expect(defaults.signIn).toEqual({ perEmail: 5, perIp: 20, windowSeconds: 900 });
    expect(defaults.ai).toEqual({
      apiKey: undefined,
      baseURL: undefined,
      model: "gpt-4.1-mini",
      timeoutMs: 20_000,
      maxOutputTokens: 800,
      maxRetries: 1,
      promptBudgetChars: 24_000,
      cacheTtlMs: 60_000,
      rateLimitPerMinute: 10,
      scrub: true,
    });
    expect(defaults.mail).toEqual({ server: undefined, from: "Telltale <no-reply@localhost>" });
    expect(defaults.production).toBe(false);
  });

  it("read values in range (whitespace trimmed)", () => {
    const s = parsed({ INGEST_MAX_CONCURRENT_WRITES: "8", INGEST_RATE_LIMIT: "0", AI_TIMEOUT_MS: " 5000 ", AUTH_TRUST_HOST: "1", NODE_ENV: "production" });
    expect([s.ingest.maxConcurrentWrites, s.ingest.ratePerSecond, s.ai.timeoutMs, s.auth.trustHost, s.production]).toEqual([8, 0, 5000, true, true]);
  });

  it("refuse anything else, naming the variable (a NaN limit would switch it off or hang writes)", () => {
    for (const bad of ["four", "1.5", "-1", "1e3", "0x10"]) {
      expect(parseSettings({ INGEST_MAX_CONCURRENT_WRITES: bad }).problems).toEqual([expect.stringMatching(/^INGEST_MAX_CONCURRENT_WRITES must be a whole number/)]);
    }
    expect(parseSettings({ AI_PROMPT_BUDGET_CHARS: "10" }).problems[0]).toMatch(/from 2000 to 400000/);
    expect(parseSettings({ AUTH_TRUST_HOST: "yes" }).problems[0]).toMatch(/AUTH_TRUST_HOST must be true or false/);
    expect(parseSettings({ DATABASE_URL: "mysql://x" }).problems[0]).toMatch(/DATABASE_URL must be a postgres: or postgresql: URL/);
    expect(parseSettings({ TELLTALE_SECRET: "short" }).problems[0]).toMatch(/TELLTALE_SECRET is shorter than 32/);
  });

  it("are all checked at once for the launchers; production also needs its secrets", () => {
    expect(settingsProblems({}, "development")).toEqual([]);
    const problems = settingsProblems({ INGEST_RATE_LIMIT: "lots", DATABASE_POOL_SIZE: "0" }, "production");
    expect(problems.map((p) => p.split(" ")[0])).toEqual(["DATABASE_POOL_SIZE", "INGEST_RATE_LIMIT", "TELLTALE_SECRET", "AUTH_SECRET"]);
  });

  it("are parsed once; what is built from them follows a reset", () => {
    vi.stubEnv("INGEST_RATE_LIMIT", "7");
    resetSettings();
    const built = fromSettings((s) => ({ rate: s.ingest.ratePerSecond }));
    const first = built();
    expect(first.rate).toBe(7);
    vi.stubEnv("INGEST_RATE_LIMIT", "9");
    expect(built()).toBe(first); // not re-read behind the caller's back
    expect(settings().ingest.ratePerSecond).toBe(7);
    resetSettings();
    expect(built().rate).toBe(9);
  });

  it("throws on first use when the environment is malformed, naming every problem", () => {
    vi.stubEnv("KEY_CACHE_TTL_MS", "soon");
    vi.stubEnv("AI_MAX_RETRIES", "99");
    resetSettings();
    expect(() => settings()).toThrow(/KEY_CACHE_TTL_MS[\s\S]*AI_MAX_RETRIES/);
  });
});
