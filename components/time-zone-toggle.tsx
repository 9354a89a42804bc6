"use client";

import { zoneName, type TimeZoneMode } from "@/components/time-format";
import { setTimeZoneMode, useHydrated, useTimeZoneMode } from "@/components/use-time-zone";

const OPTIONS: { mode: TimeZoneMode; label: string }[] = [
  { mode: "local", label: "Local" },
  { mode: "utc", label: "UTC" },
];

/** Local / UTC: the zone of every absolute time on the dashboard (remembered in this browser). */
export function TimeZoneToggle({ className = "" }: { className?: string }) {
  const mode = useTimeZoneMode();
  const hydrated = useHydrated();
  return (
    <div role="group" aria-label="Show times in" className={`inline-flex items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400 ${className}`.trim()}>
      <span aria-hidden="true">Times</span>
      <span className="inline-flex rounded-md border border-zinc-300 bg-white p-0.5 shadow-sm dark:border-zinc-700 dark:bg-zinc-900">
        {OPTIONS.map((option) => (
          <button
            key={option.mode}
            type="button"
            aria-pressed={mode === option.mode}
            title={option.mode === "utc" ? "Coordinated Universal Time" : hydrated ? `Your time zone (${zoneName("local")})` : "Your time zone"}
            onClick={() => setTimeZoneMode(option.mode)}
            className={`rounded px-2 py-0.5 font-medium transition-colors ${
              mode === option.mode
                ? "bg-indigo-600 text-white dark:bg-indigo-500"
                : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            }`}
          >
            {option.label}
          </button>
        ))}
      </span>
    </div>
  );
}
