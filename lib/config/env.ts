/**
 * Numeric settings from the environment. Unset or empty: the default. Set to
 * anything that is not a whole number in range: an error naming the variable,
 * because a silently ignored limit is worse than a refusal to start.
 * `npm run dev` and `npm start` check them all before starting the server.
 */
type Range = { min: number; max?: number };

export const NUMERIC_SETTINGS: Record<string, { fallback: number } & Range> = {
  DATABASE_POOL_SIZE: { fallback: 10, min: 1, max: 1000 },
  DATABASE_CONNECT_TIMEOUT_MS: { fallback: 3000, min: 100 },
  KEY_CACHE_TTL_MS: { fallback: 10_000, min: 1 },
  INGEST_RATE_LIMIT: { fallback: 1000, min: 0 },
  INGEST_MAX_BODY_BYTES: { fallback: 256 * 1024, min: 1 },
  INGEST_BATCH_MAX_BODY_BYTES: { fallback: 1024 * 1024, min: 1 },
  INGEST_MAX_CONCURRENT_WRITES: { fallback: 4, min: 1, max: 64 },
  AI_TIMEOUT_MS: { fallback: 20_000, min: 1, max: 600_000 },
  AI_MAX_OUTPUT_TOKENS: { fallback: 800, min: 50, max: 32_000 },
  AI_MAX_RETRIES: { fallback: 1, min: 0, max: 5 },
  AI_PROMPT_BUDGET_CHARS: { fallback: 24_000, min: 2_000, max: 400_000 },
  AI_CACHE_TTL_MS: { fallback: 60_000, min: 0, max: 3_600_000 },
  AI_RATE_LIMIT_PER_MINUTE: { fallback: 10, min: 0 },
  SIGNIN_RATE_LIMIT_PER_EMAIL: { fallback: 5, min: 0 },
  SIGNIN_RATE_LIMIT_PER_IP: { fallback: 20, min: 0 },
  SIGNIN_RATE_LIMIT_WINDOW_SECONDS: { fallback: 900, min: 1 },
};

export function envInt(name: keyof typeof NUMERIC_SETTINGS & string, env: Readonly<Record<string, string | undefined>> = process.env): number {
  const { fallback, min, max } = NUMERIC_SETTINGS[name]!;
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || (max !== undefined && value > max)) {
    throw new Error(`${name} must be a whole number from ${min}${max === undefined ? " up" : ` to ${max}`}; got "${raw}".`);
  }
  return value;
}

/** Every numeric setting's problem, for the launchers to report before starting. */
export function numericSettingProblems(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const problems: string[] = [];
  for (const name of Object.keys(NUMERIC_SETTINGS)) {
    try {
      envInt(name, env);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return problems;
}
