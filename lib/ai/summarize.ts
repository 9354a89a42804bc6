import { createHash } from "node:crypto";
import {
  APICallError,
  EmptyResponseBodyError,
  generateText,
  InvalidResponseDataError,
  JSONParseError,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  RetryError,
  TypeValidationError,
} from "ai";
import { checkAnswer, numbersIn, renderAnswer, summaryAnswerSchema, type SummaryAnswer } from "@/lib/ai/answer";
import { buildDigest } from "@/lib/ai/digest";
import { formatUtc } from "@/lib/text/format-utc";
import { totalOf, type SummaryFacts } from "@/lib/ai/facts";
import { factsFingerprint, loadSummaryFacts } from "@/lib/ai/load-facts";
import { buildSummaryPrompt } from "@/lib/ai/prompt";
import { AnswerTooLargeError, MAX_ANSWER_BYTES, modelSource, resolveSummaryModel, type SummaryModel } from "@/lib/ai/provider";
import { rankIssues } from "@/lib/ai/rank";
import { consumeSummaryQuota } from "@/lib/ai/rate-limit";
import { settings as appSettings, type AiSettings } from "@/lib/config/settings";
import { AppError, errors } from "@/lib/http/errors";
import { logger } from "@/lib/log";
import { sharedCache } from "@/lib/redis/shared-cache";
import { resolveProjectAccess } from "@/lib/auth/access";
import { listProjectNamesOfUser } from "@/lib/projects/service";

export type SummarySource = "builtin" | `model:${string}`;
/** Why a configured model did not write the answer (the built-in digest did). */
export type SummaryFallback = "ai_unavailable" | "ai_rate_limited" | "ai_inconsistent";

export type SummarizeOptions = {
  /** Events examined in detail (1 to 500). */
  limit: number;
  /** The window's start; null: the last 24 hours. */
  since: Date | null;
  /** Only this project; the user must be a member (else 403). */
  projectId?: string;
  /** For log lines only. */
  requestId?: string;
};

export type SummaryResult = {
  summary: string;
  source: SummarySource;
  fallback?: SummaryFallback;
  /** Events in the window (exact), and how many were examined in detail. */
  eventCount: number;
  examined: number;
  /** Answered from the cache (the same facts were summarized moments ago). */
  cached: boolean;
};

export type SummarizeDeps = {
  /** A model to use instead of the configured one; null forces the built-in digest. */
  model?: SummaryModel | null;
  /** Settings instead of the environment's. */
  settings?: AiSettings;
  /** The server's clock (tests pin it). */
  now?: Date;
};

/**
 * A summary in two steps: `first` at once (the built-in digest, or the whole
 * answer when no model is called: no provider, no events, a cached answer),
 * and `final`, the model's checked answer (or the digest again with the
 * reason it fell back), when a model is being asked.
 */
export type StartedSummary = { first: SummaryResult; final: Promise<SummaryResult> | null };

export const DEFAULT_SUMMARY_WINDOW_MS = 86_400_000;
/** A rendered model answer longer than this is cut (its token limit is the first bound). */
export const MAX_SUMMARY_CHARS = 6_000;

type Fresh = Omit<SummaryResult, "cached">;

// The same facts (and model) within AI_CACHE_TTL_MS get the same answer, and
// identical requests arriving together share one model call. Per process
// unless Redis is configured (docs/redis.md); the in-flight sharing is per process.
const answers = sharedCache<Fresh>("ai-summary", { max: 1_000 });
const inFlight = new Map<string, Promise<Fresh>>();

/** GET /api/ai/summarize: the caller's per-user quota, then the summary. */
export async function summarizeForRequest(user: { id: string }, options: SummarizeOptions): Promise<SummaryResult> {
  await consumeSummaryQuota(user.id);
  return summarizeRecentEvents(user, options);
}

/**
 * The summary of a window of the user's events: exact totals per level,
 * project and issue from the issue aggregates, the top issues ranked
 * (errors first; new, regressed, accelerating and stopped first; growth;
 * count), and up to `limit` events examined in detail, written by the
 * configured model and checked against the facts, or by the built-in digest
 * when there is none or it fails (the answer says which).
 */
export async function summarizeRecentEvents(user: { id: string }, options: SummarizeOptions, deps: SummarizeDeps = {}): Promise<SummaryResult> {
  const started = await startSummary(user, options, deps);
  return started.final ? await started.final : started.first;
}

/**
 * The dashboard's summary: the quota, then the digest at once and the
 * model's checked answer when it arrives, as two lines of NDJSON
 * (`{"kind":"digest",...}` then `{"kind":"final",...}`; one `final` line
 * when no model is asked). Errors before the first line (403, 429) are
 * problem details, as on GET /api/ai/summarize.
 */
export async function summaryStreamResponse(user: { id: string }, options: SummarizeOptions): Promise<Response> {
  await consumeSummaryQuota(user.id);
  const started = await startSummary(user, options);
  const encoder = new TextEncoder();
  const line = (kind: "digest" | "final", result: SummaryResult) => encoder.encode(`${JSON.stringify({ kind, ...result })}\n`);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(line(started.final ? "digest" : "final", started.first));
      if (started.final) {
        const final = await started.final.catch((): SummaryResult => ({ ...started.first, fallback: "ai_unavailable" }));
        controller.enqueue(line("final", final));
      }
      controller.close();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "Content-Type": "application/x-ndjson; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}

/** Reads the facts and writes the digest; starts the model call when one is configured and nothing cached answers. */
export async function startSummary(user: { id: string }, options: SummarizeOptions, deps: SummarizeDeps = {}): Promise<StartedSummary> {
  const settings = deps.settings ?? appSettings().ai;
  const now = deps.now ?? new Date();
  const since = options.since ?? new Date(now.getTime() - DEFAULT_SUMMARY_WINDOW_MS);
  const projects = options.projectId !== undefined ? [await requireMembership(user.id, options.projectId)] : await listProjectNamesOfUser(user.id);
  if (projects.length === 0) {
    return { first: { summary: "You are not a member of any project yet, so there are no events to summarize.", source: "builtin", eventCount: 0, examined: 0, cached: false }, final: null };
  }

  const facts = await loadSummaryFacts({ projects, since, now, limit: options.limit });
  const eventCount = totalOf(facts.totals);
  if (eventCount === 0) {
    return { first: { summary: noEventsStatement(since, now, projects), source: "builtin", eventCount: 0, examined: 0, cached: false }, final: null };
  }

  const base = { eventCount, examined: facts.examined.length };
  const digest: Fresh = { ...base, summary: buildDigest(facts, { limitExamined: options.limit }), source: "builtin" };
  const model = deps.model !== undefined ? deps.model : resolveSummaryModel(settings);
  if (!model) return { first: { ...digest, cached: false }, final: null };

  const key = createHash("sha256")
    .update(JSON.stringify([[model.provider, model.modelId, settings.baseURL ?? null, settings.scrub], options.limit, factsFingerprint(facts)]))
    .digest("base64url");
  if (settings.cacheTtlMs > 0) {
    const hit = await answers.get(key);
    if (hit) return { first: { ...hit, cached: true }, final: null };
  }
  let pending = inFlight.get(key);
  if (!pending) {
    pending = (async (): Promise<Fresh> => {
      const written = await callModel(model, facts, settings, options.requestId);
      if ("text" in written) return { ...base, summary: written.text, source: modelSource(model) };
      return { ...digest, fallback: written.fallback };
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  const final = pending.then(async (fresh) => {
    // A fallback is not cached: the provider may be back, or answer better, next time.
    if (settings.cacheTtlMs > 0 && !fresh.fallback) await answers.set(key, fresh, settings.cacheTtlMs);
    return { ...fresh, cached: false };
  });
  return { first: { ...digest, cached: false }, final };
}

/**
 * Asks the model for the structured answer, reads at most MAX_ANSWER_BYTES
 * of it, checks it against the facts (lib/ai/answer.ts) and renders it.
 * Any failure is a fallback reason, logged without the prompt or the answer.
 */
async function callModel(
  model: SummaryModel,
  facts: SummaryFacts,
  settings: AiSettings,
  requestId: string | undefined,
): Promise<{ text: string } | { fallback: SummaryFallback }> {
  const prompt = buildSummaryPrompt(facts, { budgetChars: settings.promptBudgetChars, scrub: settings.scrub });
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const started = Date.now();
  let failure: Failure;
  try {
    const result = await generateText({
      model,
      instructions: prompt.system,
      prompt: prompt.prompt,
      output: Output.object({ schema: summaryAnswerSchema, name: "summary", description: "The incident summary for the engineer on call." }),
      temperature: 0.2,
      maxOutputTokens: settings.maxOutputTokens,
      maxRetries: settings.maxRetries,
      abortSignal: signal,
    });
    if (result.finishReason === "content-filter") failure = { reason: "content-filter" };
    else if (result.finishReason === "error" || result.finishReason === "interrupted") failure = { reason: result.finishReason };
    // A model that is not reached through fetch (a mock, a gateway object) is held to the same bound.
    else if (result.text.length > MAX_ANSWER_BYTES) failure = { reason: "too_large" };
    else {
      const answer: SummaryAnswer = result.output;
      const ranked = rankIssues(facts.issues);
      const check = checkAnswer(answer, facts, ranked, numbersIn(prompt.prompt));
      if (!check.ok) {
        logger.warn("ai summary inconsistent with the facts; answering with the built-in digest", {
          requestId,
          model: model.modelId,
          reasons: check.reasons.slice(0, 5).map((r) => r.slice(0, 200)),
          ms: Date.now() - started,
        });
        return { fallback: "ai_inconsistent" };
      }
      logger.info("ai summary generated", {
        requestId,
        model: model.modelId,
        ms: Date.now() - started,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        finishReason: result.finishReason,
      });
      const text = renderAnswer(answer, facts, ranked);
      return { text: text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS)}…` : text };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    failure = classifyFailure(error, signal);
  }
  logger.warn("ai summary failed; answering with the built-in digest", {
    requestId,
    provider: model.provider,
    model: model.modelId,
    reason: failure.reason,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...(failure.error !== undefined ? { error: safeMessage(failure.error, settings) } : {}),
    ms: Date.now() - started,
  });
  return { fallback: failure.status === 429 ? "ai_rate_limited" : "ai_unavailable" };
}

type Failure = { reason: string; status?: number; error?: unknown };

function classifyFailure(error: unknown, signal: AbortSignal): Failure {
  if (signal.aborted) return { reason: "timeout", error };
  if (causes(error).some((e) => e instanceof AnswerTooLargeError)) return { reason: "too_large", error };
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === undefined) return { reason: "network", error: cause };
    // A 2xx whose body failed to parse (the SDK wraps the JSONParseError).
    if (status >= 200 && status < 300) return { reason: "malformed", status, error: cause };
    return { reason: "http", status, error: cause };
  }
  if (NoObjectGeneratedError.isInstance(cause) || NoOutputGeneratedError.isInstance(cause)) return { reason: "not_structured", error: cause };
  if (JSONParseError.isInstance(cause) || TypeValidationError.isInstance(cause) || InvalidResponseDataError.isInstance(cause) || EmptyResponseBodyError.isInstance(cause)) {
    return { reason: "malformed", error: cause };
  }
  return { reason: "other", error: cause };
}

/** An error and its causes, outermost first (a bounded walk: causes can loop). */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    out.push(e);
    e = RetryError.isInstance(e) ? e.lastError : (e as { cause?: unknown }).cause;
  }
  return out;
}

/**
 * A provider error's name and message, cut short, with the configured key
 * and anything key-shaped removed. Never the response body or request: those
 * may echo the prompt or headers.
 */
function safeMessage(error: unknown, settings: AiSettings): string {
  const raw = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  let text = raw.slice(0, 300);
  if (settings.apiKey) text = text.split(settings.apiKey).join("[redacted]");
  return text.replace(/\b(sk|tlt)[-_][A-Za-z0-9_*.-]{4,}/g, "[redacted]").replace(/(Bearer\s+)\S+/gi, "$1[redacted]");
}

async function requireMembership(userId: string, projectId: string): Promise<{ id: string; name: string }> {
  try {
    const access = await resolveProjectAccess(userId, projectId);
    return { id: access.projectId, name: access.projectName };
  } catch (error) {
    // This endpoint answers 403 (SPEC), the same whether the project exists or not.
    if (error instanceof AppError && error.status === 404) throw errors.forbidden("You are not a member of this project.");
    throw error;
  }
}

function noEventsStatement(since: Date, now: Date, projects: { name: string }[]): string {
  const where = projects.length === 1 ? `in project "${projects[0]!.name}"` : `in your ${projects.length} projects`;
  return `No events ${where} from ${formatUtc(since)} to ${formatUtc(now)} (now).`;
}
