/**
 * Every setting Telltale reads from the environment, parsed and checked in
 * one place. `settings()` parses once per process (the first caller pays);
 * the launchers (`npm run dev`, `npm start`) and instrumentation.ts call
 * `settingsProblems()` before serving, so a bad value stops the start with a
 * message naming the variable instead of surfacing later as a 500. No other
 * module reads `process.env` for a setting.
 *
 * The table below is the reference: each entry's default is what the README
 * and `.env.example` document (a test keeps the three in agreement).
 */
type Env = Readonly<Record<string, string | undefined>>;

type Spec<T> = { parse: (raw: string | undefined, name: string) => T; doc: string };

class SettingError extends Error {}

function int(fallback: number, min: number, max?: number, doc = ""): Spec<number> {
  return {
    doc,
    parse(raw, name) {
      const text = raw?.trim();
      if (!text) return fallback;
      const value = Number(text);
      if (!/^\d+$/.test(text) || value < min || (max !== undefined && value > max)) {
        throw new SettingError(`${name} must be a whole number from ${min}${max === undefined ? " up" : ` to ${max}`}; got "${text}".`);
      }
      return value;
    },
  };
}

function text(fallback?: string, doc = ""): Spec<string | undefined> {
  return { doc, parse: (raw) => raw?.trim() || fallback };
}

function flag(doc = "", fallback = false): Spec<boolean> {
  return {
    doc,
    parse(raw, name) {
      const value = raw?.trim().toLowerCase();
      if (!value) return fallback;
      if (value === "false" || value === "0") return false;
      if (value === "true" || value === "1") return true;
      throw new SettingError(`${name} must be true or false; got "${raw}".`);
    },
  };
}

function oneOf<const T extends string>(values: readonly T[], fallback: T | undefined, doc = ""): Spec<T | undefined> {
  return {
    doc,
    parse(raw, name) {
      const value = raw?.trim().toLowerCase();
      if (!value) return fallback;
      if (!(values as readonly string[]).includes(value)) throw new SettingError(`${name} must be one of ${values.join(", ")}; got "${raw}".`);
      return value as T;
    },
  };
}

function domains(doc: string): Spec<string[]> {
  return {
    doc,
    parse(raw, name) {
      const list = (raw ?? "").split(",").map((d) => d.trim().toLowerCase().replace(/^@/, "")).filter(Boolean);
      const bad = list.find((d) => !/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(d));
      if (bad) throw new SettingError(`${name} must be a comma-separated list of domain names; "${bad}" is not one.`);
      return list;
    },
  };
}

function secret(doc: string): Spec<string | undefined> {
  return {
    doc,
    parse(raw, name) {
      const value = raw?.trim();
      if (!value) return undefined;
      if (value.length < 32) throw new SettingError(`${name} is shorter than 32 characters (generate one with: openssl rand -base64 32).`);
      return value;
    },
  };
}

function url(doc: string, protocols: string[]): Spec<string | undefined> {
  return {
    doc,
    parse(raw, name) {
      const value = raw?.trim();
      if (!value) return undefined;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new SettingError(`${name} is not a URL.`);
      }
      if (!protocols.includes(parsed.protocol)) throw new SettingError(`${name} must be a ${protocols.join(" or ")} URL.`);
      return value;
    },
  };
}

/** Every environment variable Telltale reads, with its parser and default. */
export const SETTING_SPECS = {
  NODE_ENV: oneOf(["development", "production", "test"], "development", "set by Next.js"),
  PORT: int(3000, 1, 65535, "HTTP port"),
  DATABASE_URL: url("PostgreSQL connection string; unset: the embedded database", ["postgres:", "postgresql:"]),
  DIRECT_URL: url("PostgreSQL connection string for migrations when DATABASE_URL is a pooler (PgBouncer in transaction mode); unset: DATABASE_URL", ["postgres:", "postgresql:"]),
  DATABASE_POOL_SIZE: int(10, 1, 1000),
  DATABASE_CONNECT_TIMEOUT_MS: int(3000, 100),
  DATABASE_QUERY_TIMEOUT_MS: int(5000, 100, 600_000, "a query's deadline, pool wait included"),
  DATABASE_PREPARED_STATEMENTS: flag("false: no named prepared statements (PgBouncer before 1.21 in transaction mode); a failure to use one also turns them off", true),
  TELLTALE_DATA_DIR: text(".telltale/pgdata"),
  EMBEDDED_DB_PORT: int(0, 0, 65535, "0: a free port"),
  EMBEDDED_DB_MAX_CONNECTIONS: int(100, 4, 1000),
  MIGRATE_LOCK_TIMEOUT_MS: int(300_000, 1),
  TELLTALE_DEBUG_MIGRATE: flag("print the migration engine's log"),
  TELLTALE_SECRET: secret("encrypts stored API keys"),
  AUTH_SECRET: secret("Auth.js secret"),
  AUTH_URL: url("public URL of the dashboard", ["http:", "https:"]),
  NEXTAUTH_URL: url("older name of AUTH_URL", ["http:", "https:"]),
  AUTH_TRUST_HOST: flag("trust X-Forwarded-Host/-Proto"),
  TRUST_PROXY_HOPS: int(0, 0, 10, "reverse proxies in front whose X-Forwarded-For is believed"),
  SIGNUP: oneOf(["invite", "domains", "open"], undefined, "who may get a sign-in link; default invite in production, open in development"),
  SIGNUP_DOMAINS: domains("with SIGNUP=domains: the address domains allowed"),
  MAX_PROJECTS_PER_USER: int(50, 1, 100_000),
  INVITATIONS_PER_INVITER_PER_HOUR: int(20, 0),
  INVITATIONS_PER_ADDRESS_PER_DAY: int(3, 0),
  AUTH_FAILURES_PER_MINUTE: int(30, 0, 100_000, "invalid API keys per client address per minute before 429"),
  AUTH_FAILED_LOOKUPS_PER_MINUTE: int(100, 0, 1_000_000, "database lookups of unknown API keys per minute, all addresses together; past it one per address"),
  EMAIL_SERVER: text(undefined, "SMTP URL"),
  EMAIL_FROM: text("Telltale <no-reply@localhost>"),
  SIGNIN_RATE_LIMIT_PER_EMAIL: int(5, 0),
  SIGNIN_RATE_LIMIT_PER_IP: int(20, 0),
  SIGNIN_RATE_LIMIT_WINDOW_SECONDS: int(900, 1),
  INGEST_RATE_LIMIT: int(1000, 0),
  INGEST_MAX_BODY_BYTES: int(256 * 1024, 1),
  INGEST_BATCH_MAX_BODY_BYTES: int(1024 * 1024, 1),
  INGEST_MAX_DECODED_BODY_BYTES: int(1024 * 1024, 1, undefined, "POST /api/events: size of a gzip/deflate/br body once decoded"),
  INGEST_BATCH_MAX_DECODED_BODY_BYTES: int(20 * 1024 * 1024, 1, undefined, "POST /api/events/batch: size of a gzip/deflate/br body once decoded"),
  SENTRY_MAX_BODY_BYTES: int(20 * 1024 * 1024, 1, undefined, "Sentry envelope and store bodies as sent"),
  SENTRY_MAX_DECODED_BODY_BYTES: int(20 * 1024 * 1024, 1, undefined, "Sentry envelope and store bodies once decoded; each event is trimmed to 1 MiB"),
  SENTRY_CLIENT_RATE_LIMIT: int(50, 0, undefined, "Sentry route requests per second from one browser address (requests with an Origin header), bursts twice that; 0 turns it off"),
  INGEST_MAX_CONCURRENT_WRITES: int(4, 1, 64),
  KEY_CACHE_TTL_MS: int(10_000, 1),
  OPENAI_API_KEY: text(),
  OPENAI_BASE_URL: url("OpenAI-compatible server", ["http:", "https:"]),
  AI_MODEL: text("gpt-4.1-mini"),
  AI_TIMEOUT_MS: int(20_000, 1, 600_000),
  AI_MAX_OUTPUT_TOKENS: int(800, 50, 32_000),
  AI_MAX_RETRIES: int(1, 0, 5),
  AI_PROMPT_BUDGET_CHARS: int(24_000, 2_000, 400_000),
  AI_CACHE_TTL_MS: int(60_000, 0, 3_600_000),
  AI_RATE_LIMIT_PER_MINUTE: int(10, 0),
  AI_SCRUB: flag("mask what looks like secrets or personal data (emails, IP addresses, tokens and keys, card numbers, long digit runs) in event text before it is sent to an AI provider", true),
  CRON_SECRET: secret("bearer token of the POST /api/cron/* routes; unset: those routes are off"),
  RETENTION_DAYS: int(90, 0, 36_500, "days events are kept (by their time, occurredAt); 0: forever"),
  REDIS_URL: url("Redis shared by several instances (rate limits, key-cache invalidation, summary cache); unset: per process", ["redis:", "rediss:"]),
  REDIS_KEY_PREFIX: text("telltale:", "prefix of every Redis key and channel"),
  ALERTS_CRON_ONLY: flag("true: alerts are delivered only by POST /api/cron/alerts (no delivery after ingest answers, no background sweep)"),
  ALERTS_ALLOW_PRIVATE_WEBHOOKS: flag("webhooks may target loopback, private and link-local addresses"),
  ALERTS_COOLDOWN_MINUTES: int(60, 1, 10_080, "one notification per rule and issue per this many minutes"),
  ALERTS_MAX_PER_PROJECT_PER_HOUR: int(10, 1, 10_000, "notifications per project per hour; more become one digest per rule"),
  ALERTS_MAX_ATTEMPTS: int(8, 1, 30, "delivery attempts before a notification is given up"),
  ALERTS_WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000, "a webhook's deadline (connect, send, answer)"),
  TELLTALE_LOG: oneOf(["silent"], undefined, "silent: no log lines"),
} satisfies Record<string, Spec<unknown>>;

type Raw = { [K in keyof typeof SETTING_SPECS]: ReturnType<(typeof SETTING_SPECS)[K]["parse"]> };

function structure(v: Raw) {
  return {
    env: v.NODE_ENV!,
    production: v.NODE_ENV === "production",
    port: v.PORT,
    database: {
      url: v.DATABASE_URL,
      /** Migrations connect here (not through a transaction-mode pooler); unset: `url`. */
      directUrl: v.DIRECT_URL,
      poolSize: v.DATABASE_POOL_SIZE,
      connectTimeoutMs: v.DATABASE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
      preparedStatements: v.DATABASE_PREPARED_STATEMENTS,
    },
    embedded: { dataDir: v.TELLTALE_DATA_DIR!, port: v.EMBEDDED_DB_PORT, maxConnections: v.EMBEDDED_DB_MAX_CONNECTIONS },
    migrateLockTimeoutMs: v.MIGRATE_LOCK_TIMEOUT_MS,
    debugMigrate: v.TELLTALE_DEBUG_MIGRATE,
    secrets: { telltale: v.TELLTALE_SECRET, auth: v.AUTH_SECRET },
    auth: {
      url: v.AUTH_URL ?? v.NEXTAUTH_URL,
      trustHost: v.AUTH_TRUST_HOST,
      trustProxyHops: v.TRUST_PROXY_HOPS,
      failuresPerMinute: v.AUTH_FAILURES_PER_MINUTE,
      failedLookupsPerMinute: v.AUTH_FAILED_LOOKUPS_PER_MINUTE,
    },
    signUp: {
      policy: v.SIGNUP ?? (v.NODE_ENV === "production" ? "invite" : "open"),
      domains: v.SIGNUP_DOMAINS,
    },
    limits: {
      projectsPerUser: v.MAX_PROJECTS_PER_USER,
      invitationsPerInviterPerHour: v.INVITATIONS_PER_INVITER_PER_HOUR,
      invitationsPerAddressPerDay: v.INVITATIONS_PER_ADDRESS_PER_DAY,
    },
    mail: { server: v.EMAIL_SERVER, from: v.EMAIL_FROM! },
    signIn: {
      perEmail: v.SIGNIN_RATE_LIMIT_PER_EMAIL,
      perIp: v.SIGNIN_RATE_LIMIT_PER_IP,
      windowSeconds: v.SIGNIN_RATE_LIMIT_WINDOW_SECONDS,
    },
    ingest: {
      ratePerSecond: v.INGEST_RATE_LIMIT,
      maxBodyBytes: v.INGEST_MAX_BODY_BYTES,
      maxBatchBodyBytes: v.INGEST_BATCH_MAX_BODY_BYTES,
      /** Limits on a compressed body once decoded (lib/http/body-decoding.ts). */
      maxDecodedBodyBytes: v.INGEST_MAX_DECODED_BODY_BYTES,
      maxBatchDecodedBodyBytes: v.INGEST_BATCH_MAX_DECODED_BODY_BYTES,
      maxConcurrentWrites: v.INGEST_MAX_CONCURRENT_WRITES,
    },
    /** The Sentry routes' bodies (envelope and store), as sent and decoded. */
    sentry: { maxBodyBytes: v.SENTRY_MAX_BODY_BYTES, maxDecodedBodyBytes: v.SENTRY_MAX_DECODED_BODY_BYTES, clientRatePerSecond: v.SENTRY_CLIENT_RATE_LIMIT },
    keyCacheTtlMs: v.KEY_CACHE_TTL_MS,
    ai: {
      /** Never logged, never in a response. */
      apiKey: v.OPENAI_API_KEY,
      baseURL: v.OPENAI_BASE_URL,
      model: v.AI_MODEL!,
      timeoutMs: v.AI_TIMEOUT_MS,
      maxOutputTokens: v.AI_MAX_OUTPUT_TOKENS,
      maxRetries: v.AI_MAX_RETRIES,
      promptBudgetChars: v.AI_PROMPT_BUDGET_CHARS,
      cacheTtlMs: v.AI_CACHE_TTL_MS,
      rateLimitPerMinute: v.AI_RATE_LIMIT_PER_MINUTE,
      /** Mask secrets and personal data in what is sent to the provider. */
      scrub: v.AI_SCRUB,
    },
    /** Never logged, never in a response. */
    cron: { secret: v.CRON_SECRET },
    /** Events older than `days` go (`npm run telltale -- retention`, POST /api/cron/retention); 0: kept forever. */
    retention: { days: v.RETENTION_DAYS },
    /** Unset: limits and caches are per process (lib/redis). */
    redis: { url: v.REDIS_URL, keyPrefix: v.REDIS_KEY_PREFIX! },
    alerts: {
      cronOnly: v.ALERTS_CRON_ONLY,
      allowPrivateWebhooks: v.ALERTS_ALLOW_PRIVATE_WEBHOOKS,
      cooldownMinutes: v.ALERTS_COOLDOWN_MINUTES,
      maxPerProjectPerHour: v.ALERTS_MAX_PER_PROJECT_PER_HOUR,
      maxAttempts: v.ALERTS_MAX_ATTEMPTS,
      webhookTimeoutMs: v.ALERTS_WEBHOOK_TIMEOUT_MS,
    },
    log: { silent: v.TELLTALE_LOG === "silent" },
  };
}

export type Settings = ReturnType<typeof structure>;
export type AiSettings = Settings["ai"];

/** The settings an environment describes, or every problem with it. */
export function parseSettings(env: Env): { settings: Settings; problems: string[] } | { settings: null; problems: string[] } {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(SETTING_SPECS)) {
    try {
      raw[name] = spec.parse(env[name], name);
    } catch (error) {
      if (!(error instanceof SettingError)) throw error;
      problems.push(error.message);
    }
  }
  if (raw.SIGNUP === "domains" && (raw.SIGNUP_DOMAINS as string[]).length === 0) problems.push("SIGNUP=domains needs SIGNUP_DOMAINS (e.g. example.com,example.org).");
  if (problems.length > 0) return { settings: null, problems };
  return { settings: structure(raw as Raw), problems: [] };
}

/**
 * What stops a production start: every malformed value, and the secrets
 * production cannot run without.
 */
export function settingsProblems(env: Env, mode: "development" | "production"): string[] {
  const problems: string[] = [...parseSettings(env).problems];
  if (mode === "production") {
    for (const name of ["TELLTALE_SECRET", "AUTH_SECRET"] as const) {
      if (!env[name]?.trim()) problems.push(`${name} is not set (generate one with: openssl rand -base64 32).`);
    }
  }
  return problems;
}

let current: Settings | undefined;

/** This process's settings, parsed on first use; a malformed value throws, naming it. */
export function settings(): Settings {
  if (current) return current;
  const parsed = parseSettings(process.env);
  if (!parsed.settings) throw new Error(`The configuration has problems:\n${parsed.problems.map((p) => `  - ${p}`).join("\n")}`);
  current = parsed.settings;
  return current;
}

/**
 * Forgets the parsed settings so the next call reads the environment again.
 * For tests that change the environment, and for launchers that set
 * DATABASE_URL after reading their configuration.
 */
export function resetSettings(): void {
  current = undefined;
}

/**
 * A value built from the settings (a limiter, a cache), rebuilt only when the
 * settings are re-read, so that everything derived follows one source.
 */
export function fromSettings<T>(build: (s: Settings) => T): () => T {
  let builtFor: Settings | undefined;
  let value: T;
  return () => {
    const s = settings();
    if (s !== builtFor) {
      value = build(s);
      builtFor = s;
    }
    return value;
  };
}
