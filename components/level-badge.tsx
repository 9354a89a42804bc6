import type { EventLevel } from "@/lib/events/levels";

export type Level = EventLevel;

const styles: Record<Level, string> = {
  error: "bg-red-100 text-red-800 ring-red-600/20 dark:bg-red-500/15 dark:text-red-300 dark:ring-red-400/30",
  warn: "bg-amber-100 text-amber-800 ring-amber-600/20 dark:bg-amber-500/15 dark:text-amber-300 dark:ring-amber-400/30",
  info: "bg-sky-100 text-sky-800 ring-sky-600/20 dark:bg-sky-500/15 dark:text-sky-300 dark:ring-sky-400/30",
};

/** Colours shared by the badge and the chart, so both tell the same story. */
export const LEVEL_COLORS: Record<Level, string> = { error: "#dc2626", warn: "#f59e0b", info: "#0ea5e9" };

export function LevelBadge({ level }: { level: Level }) {
  return (
    <span
      className={`inline-flex w-12 shrink-0 justify-center rounded px-1.5 py-0.5 font-mono text-[11px] font-semibold uppercase ring-1 ring-inset ${styles[level]}`}
    >
      {level}
    </span>
  );
}
