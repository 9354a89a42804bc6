import { createHash } from "node:crypto";
import {
  APICallError,
  EmptyResponseBodyError,
  generateText,
  InvalidResponseDataError,
  JSONParseError,
  RetryError,
  TypeValidationError,
} from "ai";
import { LRUCache } from "lru-cache";
import { settings as appSettings, type AiSettings } from "@/lib/config/settings";
import { buildDigest } from "@/lib/ai/digest";
import { formatUtc, groupEvents, groupKey } from "@/lib/ai/group-events";
import { buildSummaryPrompt } from "@/lib/ai/prompt";
import { modelSource, resolveSummaryModel, type SummaryModel } from "@/lib/ai/provider";
import { findPreviouslySeenGroups, selectRecentEvents, type SelectedEvent } from "@/lib/events/recent";
import { countProjectsOfUser } from "@/lib/projects/service";
import { resolveProjectAccess } from "@/lib/projects/access";
import { AppError, errors } from "@/lib/http/errors";
import { logger } from "@/lib/log";
import { consumeSummaryQuota } from "@/lib/ai/rate-limit";

export type SummarySource = "builtin" | `model:${string}`;

export type SummarizeOptions = {
  limit: number;
  /** Events received at or after this instant; null: no lower bound. */
  since: Date | null;
  /** Only this project; the user must be a member (else 403). */
  projectId?: string;
  /** For log lines only. */
  requestId?: string;
};

export type SummaryResult = {
  summary: string;
  source: SummarySource;
  /** Events examined (and covered by the summary, minus `omittedGroups`' events for a model). */
  eventCount: number;
  /** Lower-priority groups left out of the model prompt for length. */
  omittedGroups: number;
  /** Answered from the in-memory cache (identical request, no new events). */
  cached: boolean;
};

export type SummarizeDeps = {
  /** A model to use instead of the configured one; null forces the built-in digest. */
  model?: SummaryModel | null;
  /** Settings instead of the environment's. */
  settings?: AiSettings;
};

type Fresh = Omit<SummaryResult, "cached">;

// Identical requests with no new events reuse the last answer for
// AI_CACHE_TTL_MS, and identical requests arriving together share one model
// call (a dashboard double-render must not cost two). Per process, as the
// SPEC allows for caches.
const answers = new LRUCache<string, Fresh>({ max: 1_000, ttl: 60_000 });
const inFlight = new Map<string, Promise<Fresh>>();

/**
 * The summary of a user's recent events (GET /api/ai/summarize): the newest
 * `limit` events since `since` in their projects, summarised by the
 * configured model, or by the built-in digest when none is configured.
 * Provider failures and timeouts are 502 ai_unavailable, never partial text.
 */
/** GET /api/ai/summarize: the caller's per-user quota, then the summary. */
export async function summarizeForRequest(user: { id: string }, options: SummarizeOptions): Promise<SummaryResult> {
  await consumeSummaryQuota(user.id);
  return summarizeRecentEvents(user, options);
}

export async function summarizeRecentEvents(
  user: { id: string },
  options: SummarizeOptions,
  deps: SummarizeDeps = {},
): Promise<SummaryResult> {
  const settings = deps.settings ?? appSettings().ai;
  const projectName = options.projectId !== undefined ? await requireMembership(user.id, options.projectId) : null;

  const events = await selectRecentEvents(user.id, options);
  if (events.length === 0) {
    return { summary: await noEventsStatement(user.id, options.since, projectName), source: "builtin", eventCount: 0, omittedGroups: 0, cached: false };
  }

  const model = deps.model !== undefined ? deps.model : resolveSummaryModel(settings);
  const key = JSON.stringify([
    user.id,
    options.limit,
    options.since?.getTime() ?? null,
    options.projectId ?? null,
    model ? [model.provider, model.modelId, settings.baseURL ?? null] : "builtin",
    fingerprint(events),
  ]);
  if (settings.cacheTtlMs > 0) {
    const hit = answers.get(key);
    if (hit) return { ...hit, cached: true };
  }

  let pending = inFlight.get(key);
  if (!pending) {
    pending = produce(events, options, model, settings).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  const fresh = await pending;
  if (settings.cacheTtlMs > 0) answers.set(key, fresh, { ttl: settings.cacheTtlMs });
  return { ...fresh, cached: false };
}

async function produce(
  events: SelectedEvent[],
  options: SummarizeOptions,
  model: SummaryModel | null,
  settings: AiSettings,
): Promise<Fresh> {
  // Events are newest first.
  const newest = events[0]!;
  const oldest = events[events.length - 1]!;
  const groups = groupEvents(events);
  const seen = new Set((await findPreviouslySeenGroups(groups, oldest)).map(groupKey));
  for (const group of groups) group.isNew = !seen.has(group.key);
  const projectCount = new Set(events.map((e) => e.projectId)).size;

  if (!model) {
    const summary = buildDigest({
      groups,
      eventCount: events.length,
      since: options.since,
      oldest: oldest.receivedAt,
      newest: newest.receivedAt,
      newnessKnown: true,
    });
    return { summary, source: "builtin", eventCount: events.length, omittedGroups: 0 };
  }

  const prompt = buildSummaryPrompt({
    groups,
    eventCount: events.length,
    projectCount,
    since: options.since,
    oldest: oldest.receivedAt,
    newest: newest.receivedAt,
    budgetChars: settings.promptBudgetChars,
  });
  const summary = await callModel(model, prompt.system, prompt.prompt, settings, options.requestId);
  return { summary, source: modelSource(model), eventCount: events.length, omittedGroups: prompt.omittedGroups };
}

async function callModel(
  model: SummaryModel,
  system: string,
  prompt: string,
  settings: AiSettings,
  requestId: string | undefined,
): Promise<string> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  const started = Date.now();
  let failure: { detail: string; reason: string; status?: number; error?: unknown };
  try {
    const result = await generateText({
      model,
      instructions: system,
      prompt,
      temperature: 0.2,
      maxOutputTokens: settings.maxOutputTokens,
      maxRetries: settings.maxRetries,
      abortSignal: signal,
    });
    const text = result.text.trim();
    if (result.finishReason === "length") {
      failure = { reason: "length", detail: "The AI provider's answer was cut off at the output limit; raise AI_MAX_OUTPUT_TOKENS or use a non-reasoning model." };
    } else if (result.finishReason === "content-filter") {
      failure = { reason: "content-filter", detail: "The AI provider withheld its answer (content filter)." };
    } else if (result.finishReason === "error" || result.finishReason === "interrupted") {
      failure = { reason: result.finishReason, detail: "The AI provider did not finish its answer." };
    } else if (text === "") {
      failure = { reason: "empty", detail: "The AI provider returned an empty answer." };
    } else {
      logger.info("ai summary generated", {
        requestId,
        model: model.modelId,
        ms: Date.now() - started,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
      });
      return text;
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    failure = classifyFailure(error, signal, settings);
  }
  logger.warn("ai summary failed", {
    requestId,
    provider: model.provider,
    model: model.modelId,
    reason: failure.reason,
    ...(failure.status !== undefined ? { status: failure.status } : {}),
    ...(failure.error !== undefined ? { error: safeMessage(failure.error, settings) } : {}),
    ms: Date.now() - started,
  });
  throw errors.aiUnavailable(failure.detail);
}

const UNREADABLE = "The AI provider sent an answer that could not be read.";

function classifyFailure(
  error: unknown,
  signal: AbortSignal,
  settings: AiSettings,
): { detail: string; reason: string; status?: number; error: unknown } {
  if (signal.aborted) {
    return { reason: "timeout", error, detail: `The AI provider did not answer within ${formatSeconds(settings.timeoutMs)}.` };
  }
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === undefined) return { reason: "network", error: cause, detail: "Could not reach the AI provider." };
    // A 2xx whose body failed to parse (the SDK wraps the JSONParseError).
    if (status >= 200 && status < 300) return { reason: "malformed", status, error: cause, detail: UNREADABLE };
    const detail =
      status === 401 || status === 403
        ? `The AI provider refused the credentials (HTTP ${status}); check the server's OPENAI_API_KEY.`
        : status === 404
          ? `The AI provider does not offer the configured model (HTTP 404); check AI_MODEL.`
          : status === 429
            ? "The AI provider is rate limiting or out of quota (HTTP 429); try again later."
            : `The AI provider answered with an error (HTTP ${status}).`;
    return { reason: "http", status, error: cause, detail };
  }
  if (
    JSONParseError.isInstance(cause) ||
    TypeValidationError.isInstance(cause) ||
    InvalidResponseDataError.isInstance(cause) ||
    EmptyResponseBodyError.isInstance(cause)
  ) {
    return { reason: "malformed", error: cause, detail: UNREADABLE };
  }
  return { reason: "other", error: cause, detail: "The AI provider call failed." };
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

async function requireMembership(userId: string, projectId: string): Promise<string> {
  try {
    return (await resolveProjectAccess(userId, projectId)).projectName;
  } catch (error) {
    // This endpoint answers 403 (SPEC), the same whether the project exists or not.
    if (error instanceof AppError && error.status === 404) throw errors.forbidden("You are not a member of this project.");
    throw error;
  }
}

async function noEventsStatement(userId: string, since: Date | null, projectName: string | null): Promise<string> {
  const when = since ? `since ${formatUtc(since)}` : "yet";
  if (projectName !== null) return `No events received ${when} in project "${projectName}".`;
  const projects = await countProjectsOfUser(userId);
  if (projects === 0) return "You are not a member of any project yet, so there are no events to summarize.";
  return `No events received ${when} in your ${projects === 1 ? "project" : `${projects} projects`}.`;
}

/** Identifies the examined events: a new event (or a lost membership) changes it. */
function fingerprint(events: SelectedEvent[]): string {
  const hash = createHash("sha256");
  for (const e of events) hash.update(e.id).update(",");
  return hash.digest("base64url");
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
