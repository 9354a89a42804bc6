"use client";

import { useEffect, useRef, useState } from "react";
import { buttonClass } from "@/components/button";

export type EventFilterValues = { level: string; q: string; range: string; from: string; to: string };

export const RANGES = [
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last 24 hours" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "custom", label: "Custom range" },
] as const;

const field =
  "h-9 rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-900 shadow-sm dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";

/**
 * The events page's filters: a plain GET form (works without script), so every
 * filtered view has a shareable URL. Selects apply at once; `tz` carries the
 * browser's UTC offset so a custom range means the reader's local time.
 */
export function EventFilters({ action, values }: { action: string; values: EventFilterValues }) {
  const form = useRef<HTMLFormElement>(null);
  const [range, setRange] = useState(values.range);
  const [tz, setTz] = useState("");
  useEffect(() => setTz(String(new Date().getTimezoneOffset())), []);

  const submit = () => form.current?.requestSubmit();

  return (
    <form
      ref={form}
      action={action}
      method="get"
      role="search"
      aria-label="Filter events"
      className="flex flex-wrap items-end gap-2"
      onSubmit={(event) => {
        // Leave empty fields out of the URL (disabled fields are not submitted).
        const empty = [...event.currentTarget.elements].filter(
          (el): el is HTMLInputElement | HTMLSelectElement => (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.name !== "" && el.value === "",
        );
        for (const el of empty) el.disabled = true;
        setTimeout(() => empty.forEach((el) => (el.disabled = false)));
      }}
    >
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-level" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Level
        </label>
        <select id="filter-level" name="level" defaultValue={values.level} onChange={submit} className={field}>
          <option value="">All levels</option>
          <option value="error">Error</option>
          <option value="warn">Warn</option>
          <option value="info">Info</option>
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-range" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Time range
        </label>
        <select
          id="filter-range"
          name="range"
          value={range}
          onChange={(event) => {
            setRange(event.target.value);
            if (event.target.value !== "custom") queueMicrotask(submit);
          }}
          className={field}
        >
          {RANGES.map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      {range === "custom" && (
        <>
          <div className="flex flex-col gap-1">
            <label htmlFor="filter-from" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
              From
            </label>
            <input id="filter-from" type="datetime-local" name="from" defaultValue={values.from} className={field} />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor="filter-to" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
              To
            </label>
            <input id="filter-to" type="datetime-local" name="to" defaultValue={values.to} className={field} />
          </div>
          <input type="hidden" name="tz" value={tz} />
        </>
      )}
      <div className="flex min-w-48 flex-1 flex-col gap-1">
        <label htmlFor="filter-q" className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
          Search messages
        </label>
        <input id="filter-q" type="search" name="q" defaultValue={values.q} placeholder="e.g. timeout" className={`${field} w-full`} />
      </div>
      <button type="submit" className={buttonClass("secondary")}>
        Apply
      </button>
    </form>
  );
}
