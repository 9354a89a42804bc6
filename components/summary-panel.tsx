"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/button";
import { LocalTime } from "@/components/local-time";
import { SummaryText } from "@/components/summary-text";
import { pluralWord } from "@/lib/text/plural";

const WINDOWS = [
  { label: "Last hour", seconds: 3_600 },
  { label: "Last 24 hours", seconds: 86_400 },
  { label: "Last 7 days", seconds: 604_800 },
] as const;
const LIMITS = [50, 100, 500] as const;

type Summary = {
  text: string;
  source: string;
  /** "ai_unavailable", "ai_rate_limited" or "ai_inconsistent" when a configured model did not write it. */
  fallback: string | null;
  /** The built-in digest, shown while the model writes its answer (which replaces it). */
  waitingForModel: boolean;
  eventCount: number;
  examined: number;
  cached: boolean;
  at: Date;
};

type Failure = { title: string; detail: string; code?: string };

type State =
  | { status: "idle" }
  | { status: "loading"; previous?: Summary }
  | { status: "done"; summary: Summary }
  | { status: "error"; failure: Failure };

/** One line of GET /api/ai/summarize/stream. */
type StreamLine = {
  kind: "digest" | "final";
  summary: string;
  source: string;
  fallback?: string;
  eventCount: number;
  examined: number;
  cached: boolean;
};

/**
 * Asks GET /api/ai/summarize/stream for a summary of recent events (all the
 * user's projects, or `projectId`): the built-in digest shows as soon as the
 * facts are read, and the model's checked answer replaces it when it
 * arrives, so nobody waits on a spinner for the model. The answer is
 * rendered as safe Markdown, never as HTML. Runs on demand, not on page
 * load, so that viewing a page never costs a model call.
 */
export function SummaryPanel({ projectId, className = "" }: { projectId?: string; className?: string }) {
  const [windowSeconds, setWindowSeconds] = useState<number>(86_400);
  const [limit, setLimit] = useState<number>(50);
  const [state, setState] = useState<State>({ status: "idle" });
  const inFlight = useRef<AbortController | null>(null);
  const ids = useId();

  useEffect(() => () => inFlight.current?.abort(), []);

  async function summarize() {
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setState((s) => ({ status: "loading", previous: s.status === "done" ? s.summary : undefined }));

    // Rounded down to the minute, so that pressing again soon sends the same
    // request and the server can answer from its cache when nothing new came in.
    const since = Math.floor((Date.now() / 1000 - windowSeconds) / 60) * 60;
    const params = new URLSearchParams({ limit: String(limit), since: String(since) });
    if (projectId) params.set("projectId", projectId);

    try {
      const response = await fetch(`/api/ai/summarize/stream?${params}`, {
        credentials: "same-origin",
        headers: { Accept: "application/x-ndjson" },
        cache: "no-store",
        signal: controller.signal,
      });
      if (!response.ok || !response.body) {
        setState({ status: "error", failure: await readFailure(response) });
        return;
      }
      let final = false;
      for await (const line of ndjsonLines(response.body)) {
        if (typeof line.summary !== "string") throw new Error("unexpected answer");
        final = line.kind === "final";
        setState({
          status: "done",
          summary: {
            text: line.summary,
            source: line.source,
            fallback: line.fallback ?? null,
            waitingForModel: !final,
            eventCount: line.eventCount,
            examined: line.examined,
            cached: line.cached,
            at: new Date(),
          },
        });
      }
      if (!final) throw new Error("the answer ended early");
    } catch (error) {
      if (controller.signal.aborted) return;
      setState({
        status: "error",
        failure: {
          title: "Could not get a summary",
          detail: error instanceof TypeError ? "The server could not be reached. Check your connection and try again." : "The server sent an answer that could not be read.",
        },
      });
    } finally {
      if (inFlight.current === controller) inFlight.current = null;
    }
  }

  const loading = state.status === "loading" || (state.status === "done" && state.summary.waitingForModel);
  const shown = state.status === "done" ? state.summary : state.status === "loading" ? state.previous : undefined;

  return (
    <section
      aria-labelledby={`${ids}-title`}
      className={`rounded-xl border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900 ${className}`.trim()}
    >
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 id={`${ids}-title`} className="text-base font-semibold">
            Summary of recent events
          </h2>
          <p className="text-xs text-zinc-500 dark:text-zinc-400">
            {projectId ? "This project" : "All your projects"}: exact totals for the window, the worst issues first.
          </p>
        </div>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void summarize();
          }}
        >
          <Choice label="Window" value={windowSeconds} onChange={setWindowSeconds} disabled={loading} options={WINDOWS.map((w) => [w.seconds, w.label])} />
          <Choice label="Events read in detail" value={limit} onChange={setLimit} disabled={loading} options={LIMITS.map((n) => [n, `up to ${n}`])} />
          <Button type="submit" variant="primary" disabled={loading}>
            {loading ? "Summarizing…" : shown ? "Refresh" : "Summarize"}
          </Button>
        </form>
      </div>

      <div aria-live="polite" aria-busy={loading} className="mt-4">
        {state.status === "error" && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
            <p className="font-medium">{state.failure.title}</p>
            <p className="mt-1">{state.failure.detail}</p>
            {state.failure.code && <p className="mt-1 font-mono text-xs opacity-75">{state.failure.code}</p>}
          </div>
        )}

        {loading && !shown && <p className="animate-pulse text-sm text-zinc-500 dark:text-zinc-400">Reading your events…</p>}

        {shown && (
          <div className={state.status === "loading" ? "opacity-50 transition-opacity" : undefined}>
            {shown.waitingForModel && (
              <p role="status" className="mb-3 animate-pulse rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-200">
                The AI model is writing its summary; meanwhile, this is the built-in digest of the same facts.
              </p>
            )}
            {shown.fallback && (
              <p role="status" className="mb-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
                {fallbackMessage(shown.fallback)}
              </p>
            )}
            <div className="summary-markdown space-y-2 text-sm leading-relaxed break-words">
              <SummaryText text={shown.text} />
            </div>
            <p className="mt-3 flex flex-wrap gap-x-3 gap-y-1 border-t border-zinc-100 pt-2 text-xs text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
              <span>{sourceLabel(shown)}</span>
              <span>
                {shown.eventCount.toLocaleString()} {pluralWord(shown.eventCount, "event")} in the window, {shown.examined.toLocaleString()} read in detail
              </span>
              <span>
                {shown.cached ? "cached answer, " : ""}
                <LocalTime iso={shown.at.toISOString()} />
              </span>
            </p>
          </div>
        )}

        {state.status === "idle" && (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">Choose a window and press Summarize for a short account of what happened.</p>
        )}
      </div>
    </section>
  );
}

function Choice({
  label,
  value,
  onChange,
  disabled,
  options,
}: {
  label: string;
  value: number;
  onChange: (value: number) => void;
  disabled: boolean;
  options: [number, string][];
}) {
  return (
    <label className="flex flex-col gap-1 text-xs text-zinc-600 dark:text-zinc-400">
      {label}
      <select
        value={value}
        onChange={(e) => onChange(Number(e.target.value))}
        disabled={disabled}
        className="h-9 rounded-md border border-zinc-300 bg-white px-2 text-sm text-zinc-900 dark:border-zinc-700 dark:bg-zinc-950 dark:text-zinc-100"
      >
        {options.map(([optionValue, optionLabel]) => (
          <option key={optionValue} value={optionValue}>
            {optionLabel}
          </option>
        ))}
      </select>
    </label>
  );
}

function sourceLabel(summary: Summary): string {
  const { source, fallback } = summary;
  if (source.startsWith("model:")) return `Written by AI model ${source.slice("model:".length)}, checked against the facts`;
  if (source !== "builtin") return "Source unknown";
  if (summary.waitingForModel) return "Built-in digest (the AI model's answer follows)";
  if (fallback === "ai_inconsistent") return "Built-in digest (the AI model's answer did not match the facts)";
  return fallback ? "Built-in digest (the AI model was unavailable)" : "Built-in digest (no AI model)";
}

function fallbackMessage(fallback: string): string {
  if (fallback === "ai_rate_limited") return "The AI model is rate limiting this server right now, so this is the built-in digest of the same facts.";
  if (fallback === "ai_inconsistent") return "The AI model's answer did not match the facts (a count, a time or the top error was wrong), so this is the built-in digest of the same facts.";
  return "The AI model was unavailable (an error or no answer in time), so this is the built-in digest of the same facts.";
}

/** The JSON lines of a streamed answer, as they arrive. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamLine> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield JSON.parse(line) as StreamLine;
    }
    if (done) break;
  }
  if (buffer.trim()) yield JSON.parse(buffer) as StreamLine;
}


/** A problem-details answer as title + detail; anything else as a generic message with the status. */
async function readFailure(response: Response): Promise<Failure> {
  let problem: { title?: unknown; detail?: unknown; code?: unknown } = {};
  try {
    problem = (await response.json()) as typeof problem;
  } catch {
    // not JSON: fall through to the generic message
  }
  const retryAfter = response.headers.get("Retry-After");
  const detail =
    typeof problem.detail === "string"
      ? problem.detail
      : `The server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`;
  return {
    title: typeof problem.title === "string" ? problem.title : "Could not get a summary",
    detail: response.status === 429 && retryAfter && !detail.includes("Retry") ? `${detail} Retry after ${retryAfter} s.` : detail,
    code: typeof problem.code === "string" ? problem.code : undefined,
  };
}
