import { eventHistogram, histogramBucketMs, type HistogramBucket } from "@/lib/issues/histogram";
import type { ProjectAccess } from "@/lib/auth/access";

const MINUTE = 60_000;
/** Narrowest window a fitted chart shows. */
const MIN_FIT_MS = 30 * MINUTE;
/** A window is narrowed only when the events fill less than this share of it. */
const FIT_BELOW_SHARE = 0.25;
const MAX_REFINEMENTS = 3;

export type TimeWindow = { since: Date; until: Date };

/**
 * The part of [since, until) that holds the histogram's events, with room
 * either side (half the events' span, at least 15 minutes), or null when
 * the events already fill a quarter of it or more (or there are none).
 */
export function fitWindow(histogram: HistogramBucket[], window: TimeWindow): TimeWindow | null {
  const since = window.since.getTime();
  const until = window.until.getTime();
  const size = histogramBucketMs(until - since);
  const busy = histogram.filter((b) => b.error + b.warn + b.info > 0);
  if (busy.length === 0) return null;
  const activeFrom = Math.max(Date.parse(busy[0]!.bucket), since);
  const activeTo = Math.min(Date.parse(busy.at(-1)!.bucket) + size, until);
  const span = activeTo - activeFrom;
  if (span >= (until - since) * FIT_BELOW_SHARE) return null;
  const pad = Math.max(span / 2, MIN_FIT_MS / 2);
  let from = Math.max(activeFrom - pad, since);
  const to = Math.min(activeTo + pad, until);
  if (to - from < MIN_FIT_MS) from = Math.max(to - MIN_FIT_MS, since);
  return { since: new Date(Math.floor(from / MINUTE) * MINUTE), until: new Date(to) };
}

/**
 * An issue's chart over [since, until), zoomed in on its events when they
 * fill only a small part of it (a 35-minute outage in a 24-hour period is
 * shown over about an hour, not as two bars at one edge). Each step reads
 * the issue's kept counts at a finer bucket size.
 */
export async function issueChart(access: ProjectAccess, issueId: string, window: TimeWindow): Promise<{ histogram: HistogramBucket[]; window: TimeWindow; fitted: boolean }> {
  let current = window;
  let histogram = await eventHistogram(access, { issueId, ...current });
  for (let i = 0; i < MAX_REFINEMENTS; i++) {
    const fitted = fitWindow(histogram, current);
    const span = (w: TimeWindow) => w.until.getTime() - w.since.getTime();
    // Stop once a step no longer narrows the view much.
    if (!fitted || span(fitted) > span(current) * 0.8) break;
    current = fitted;
    histogram = await eventHistogram(access, { issueId, ...current });
  }
  return { histogram, window: current, fitted: current !== window };
}
