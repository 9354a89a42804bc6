"use client";

import { useState } from "react";
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import { LEVEL_COLORS, type Level } from "@/components/level-badge";
import { compactNumber, formatCount } from "@/components/number-format";
import { formatTime, zoneName } from "@/components/time-format";
import { useMediaQuery } from "@/components/use-media-query";
import { useTimeZone, type TimeZoneChoice } from "@/components/use-time-zone";
import type { HistogramBucket } from "@/lib/issues/histogram";
import { EVENT_LEVELS as LEVELS } from "@/lib/events/levels";

const LEVEL_NAMES: Record<Level, [string, string]> = { error: ["error", "errors"], warn: ["warning", "warnings"], info: ["info", "info"] };
const DAY = 86_400_000;

/** Axis ticks: hours within two days, days beyond; the zone is named once, beside the chart. */
function tickFormatter(spanMs: number, { mode, zone }: TimeZoneChoice) {
  const format = new Intl.DateTimeFormat("en-US", {
    ...(spanMs <= 2 * DAY ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } : { month: "short", day: "numeric" }),
    timeZone: mode === "utc" ? "UTC" : zone,
  });
  return (iso: string) => format.format(new Date(iso));
}

/** Room for the widest Y-axis label (about 7 px a character at 11 px), so four-digit counts are not clipped. */
export function yAxisWidth(maxValue: number): number {
  return Math.max(24, compactNumber(maxValue).length * 7 + 10);
}

function ChartTooltip({ active, payload, label, choice }: TooltipContentProps & { choice: TimeZoneChoice }) {
  if (!active || !payload?.length) return null;
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs shadow-md dark:border-zinc-700 dark:bg-zinc-900">
      <p className="mb-1 font-medium">{formatTime(String(label), choice.mode, "datetime", choice.zone)}</p>
      {[...payload].reverse().map((item) => (
        <p key={String(item.dataKey)} className="flex items-center gap-2">
          <span className="inline-block size-2 rounded-sm" style={{ background: item.color }} />
          {String(item.dataKey)}: {formatCount(Number(item.value))}
        </p>
      ))}
    </div>
  );
}

/**
 * Events per level over time, stacked (errors at the bottom, where the eye
 * starts). The totals beside it are the sum of the bars, so the number and
 * the chart always agree. On a phone the chart folds away behind "Show
 * chart" (CSS decides, so nothing moves after loading) to leave the screen
 * to the list.
 */
export function EventsChart({ data }: { data: HistogramBucket[] }) {
  const choice = useTimeZone();
  const [open, setOpen] = useState(false);
  // Tailwind's `sm`: from there on the chart is always shown. The chart is
  // drawn only while shown: hidden (display: none), it measures 0 x 0 and
  // the chart library warns about it in the console.
  const wide = useMediaQuery("(min-width: 640px)");
  const totals = LEVELS.map((level) => data.reduce((sum, b) => sum + b[level], 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const max = data.reduce((m, b) => Math.max(m, b.error + b.warn + b.info), 0);
  const spanMs = data.length > 1 ? Date.parse(data[data.length - 1]!.bucket) - Date.parse(data[0]!.bucket) : DAY;
  const described = LEVELS.map((level, i) => `${formatCount(totals[i]!)} ${LEVEL_NAMES[level][totals[i] === 1 ? 0 : 1]}`).join(", ");
  const description = `Events per level over time: ${described} (${formatCount(total)} in total).`;

  return (
    <div className="text-zinc-500 dark:text-zinc-400">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs">
        {LEVELS.map((level, i) => (
          <span key={level} className="inline-flex items-center gap-1.5">
            <span aria-hidden="true" className="inline-block size-2.5 rounded-sm" style={{ background: LEVEL_COLORS[level] }} />
            {level} <span className="font-medium text-zinc-800 tabular-nums dark:text-zinc-200">{formatCount(totals[i]!)}</span>
          </span>
        ))}
        <span className="ml-auto flex items-center gap-3">
          <span className="tabular-nums" data-testid="chart-total">
            <span className="font-medium text-zinc-800 dark:text-zinc-200">{formatCount(total)}</span> {total === 1 ? "event" : "events"} in chart
          </span>
          <button
            type="button"
            aria-expanded={open}
            onClick={() => setOpen((o) => !o)}
            className="rounded-md border border-zinc-300 px-2 py-1 font-medium text-zinc-700 sm:hidden dark:border-zinc-700 dark:text-zinc-300"
          >
            {open ? "Hide chart" : "Show chart"}
          </button>
        </span>
      </div>
      <figure className={`${open ? "block" : "hidden"} mt-2 sm:mt-3 sm:block`}>
        <div role="img" aria-label={description} className="h-36 w-full sm:h-48">
          {(open || wide) && (
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }} barCategoryGap={1}>
                <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
                <XAxis
                  dataKey="bucket"
                  tickFormatter={tickFormatter(spanMs, choice)}
                  tick={{ fill: "currentColor", fontSize: 11 }}
                  tickLine={false}
                  axisLine={false}
                  minTickGap={24}
                />
                <YAxis
                  allowDecimals={false}
                  tickFormatter={(value: number) => compactNumber(value)}
                  tick={{ fill: "currentColor", fontSize: 11 }}
                  tickLine={false}
                  axisLine={false}
                  width={yAxisWidth(max)}
                />
                <Tooltip content={(props) => <ChartTooltip {...props} choice={choice} />} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
                {LEVELS.map((level) => (
                  <Bar key={level} dataKey={level} stackId="levels" fill={LEVEL_COLORS[level]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          )}
        </div>
        <figcaption className="mt-1 text-right text-[11px]">Times in {choice.mode === "utc" ? "UTC" : `your time zone (${zoneName("local", choice.zone)})`}</figcaption>
      </figure>
    </div>
  );
}
