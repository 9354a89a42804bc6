"use client";

import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis, type TooltipContentProps } from "recharts";
import { LEVEL_COLORS, type Level } from "@/components/level-badge";
import type { HistogramBucket } from "@/lib/events/histogram";

const LEVELS: Level[] = ["error", "warn", "info"];
const DAY = 86_400_000;

function tickFormatter(spanMs: number) {
  return (iso: string) => {
    const date = new Date(iso);
    if (spanMs <= 2 * DAY) return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
    return date.toLocaleDateString(undefined, { month: "short", day: "numeric" });
  };
}

function ChartTooltip({ active, payload, label }: TooltipContentProps) {
  if (!active || !payload?.length) return null;
  return (
    <div className="rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs shadow-md dark:border-zinc-700 dark:bg-zinc-900">
      <p className="mb-1 font-medium">{new Date(String(label)).toLocaleString()}</p>
      {[...payload].reverse().map((item) => (
        <p key={String(item.dataKey)} className="flex items-center gap-2">
          <span className="inline-block size-2 rounded-sm" style={{ background: item.color }} />
          {String(item.dataKey)}: {item.value}
        </p>
      ))}
    </div>
  );
}

/** Events per level over time, stacked (errors at the bottom, where the eye starts). */
export function EventsChart({ data }: { data: HistogramBucket[] }) {
  const totals = LEVELS.map((level) => data.reduce((sum, b) => sum + b[level], 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const spanMs = data.length > 1 ? Date.parse(data[data.length - 1]!.bucket) - Date.parse(data[0]!.bucket) : DAY;
  const description = `Events per level over time: ${totals[0]} errors, ${totals[1]} warnings, ${totals[2]} info.`;

  return (
    <figure role="img" aria-label={description} className="text-zinc-500 dark:text-zinc-400">
      <div className="mb-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs" aria-hidden="true">
        {LEVELS.map((level, i) => (
          <span key={level} className="inline-flex items-center gap-1.5">
            <span className="inline-block size-2.5 rounded-sm" style={{ background: LEVEL_COLORS[level] }} />
            {level} <span className="font-medium text-zinc-800 tabular-nums dark:text-zinc-200">{totals[i]}</span>
          </span>
        ))}
        <span className="ml-auto tabular-nums">{total} total</span>
      </div>
      <div className="h-40 w-full sm:h-48">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: -24 }} barCategoryGap={1}>
            <CartesianGrid vertical={false} stroke="currentColor" strokeOpacity={0.15} />
            <XAxis
              dataKey="bucket"
              tickFormatter={tickFormatter(spanMs)}
              tick={{ fill: "currentColor", fontSize: 11 }}
              tickLine={false}
              axisLine={false}
              minTickGap={24}
            />
            <YAxis allowDecimals={false} tick={{ fill: "currentColor", fontSize: 11 }} tickLine={false} axisLine={false} width={48} />
            <Tooltip content={ChartTooltip} cursor={{ fill: "currentColor", fillOpacity: 0.08 }} />
            {LEVELS.map((level) => (
              <Bar key={level} dataKey={level} stackId="levels" fill={LEVEL_COLORS[level]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
