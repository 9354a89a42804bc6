"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/button";
import { LocalTime } from "@/components/local-time";
import { SummaryText } from "@/components/summary-text";

const WINDOWS = [
  { label: "Last hour", seconds: 3_600 },
  { label: "Last 24 hours", seconds: 86_400 },
  { label: "Last 7 days", seconds: 604_800 },
] as const;
const LIMITS = [50, 100, 500] as const;

type Summary = {
  text: string;
  source: string;
  /** "ai_unavailable" or "ai_rate_limited" when a configured model did not write it. */
  fallback: string | null;
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

/**
 * Asks GET /api/ai/summarize for a summary of recent events (all the user's
 * projects, or `projectId`) and shows it as plain text: the answer is never
 * interpreted as HTML. Runs on demand, not on page load, so that viewing a
 * page never costs a model call.
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
      const response = await fetch(`/api/ai/summarize?${params}`, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
        cache: "no-store",
        signal: controller.signal,
      });
      if (!response.ok) {
        setState({ status: "error", failure: await readFailure(response) });
        return;
      }
      const body = (await response.json()) as { summary?: unknown };
      if (typeof body.summary !== "string") throw new Error("unexpected answer");
      setState({
        status: "done",
        summary: {
          text: body.summary,
          source: response.headers.get("X-Summary-Source") ?? "",
          fallback: response.headers.get("X-Summary-Fallback"),
          eventCount: Number(response.headers.get("X-Summary-Events") ?? 0),
          examined: Number(response.headers.get("X-Summary-Examined") ?? 0),
          cached: response.headers.get("X-Summary-Cache") === "hit",
          at: new Date(),
        },
      });
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

  const loading = state.status === "loading";
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
          <div className={loading ? "opacity-50 transition-opacity" : undefined}>
            {shown.fallback && (
              <p role="status" className="mb-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
                {shown.fallback === "ai_rate_limited"
                  ? "The AI model is rate limiting this server right now, so this is the built-in digest of the same facts."
                  : "The AI model was unavailable (an error or no answer in time), so this is the built-in digest of the same facts."}
              </p>
            )}
            <div className="summary-markdown space-y-2 text-sm leading-relaxed break-words">
              <SummaryText text={shown.text} />
            </div>
            <p className="mt-3 flex flex-wrap gap-x-3 gap-y-1 border-t border-zinc-100 pt-2 text-xs text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
              <span>{sourceLabel(shown.source, shown.fallback)}</span>
              <span>
                {shown.eventCount.toLocaleString()} event{shown.eventCount === 1 ? "" : "s"} in the window, {shown.examined.toLocaleString()} read in detail
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

function sourceLabel(source: string, fallback: string | null): string {
  if (source.startsWith("model:")) return `Written by AI model ${source.slice("model:".length)}`;
  if (source === "builtin") return fallback ? "Built-in digest (the AI model was unavailable)" : "Built-in digest (no AI model)";
  return "Source unknown";
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
