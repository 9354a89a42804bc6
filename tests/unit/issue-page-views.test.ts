/**
 * The issue page's pure parts: the chart window that fits an issue's
 * events, and an event's stack as frames (Sentry exceptions with a chain
 * and source lines, native stack strings).
 */
import { describe, expect, it } from "vitest";
import { histogramBucketMs, type HistogramBucket } from "@/lib/issues/histogram";
import { eventStackView } from "@/lib/grouping/stack-view";
import { fitWindow } from "@/lib/issues/chart-window";

const MINUTE = 60_000;
const HOUR = 3_600_000;

function histogram(since: number, until: number, counts: Map<number, number>): HistogramBucket[] {
  const size = histogramBucketMs(until - since);
  const out: HistogramBucket[] = [];
  for (let t = Math.floor(since / size) * size; t < until; t += size) {
    let n = 0;
    for (const [at, c] of counts) if (at >= t && at < t + size) n += c;
    out.push({ bucket: new Date(t).toISOString(), error: n, warn: 0, info: 0 });
  }
  return out;
}

describe("fitWindow", () => {
  const until = Date.UTC(2026, 10, 27, 14, 0);
  const since = until - 24 * HOUR;

  it("zooms a 24-hour chart in on a 35-minute outage, with room either side", () => {
    const start = until - 10 * HOUR + 7 * MINUTE;
    const outage = new Map(Array.from({ length: 36 }, (_, i) => [start + i * MINUTE, 3] as [number, number]));
    let window = { since: new Date(since), until: new Date(until) };
    // As the page does: refit while it narrows.
    for (let i = 0; i < 3; i++) {
      const fitted = fitWindow(histogram(window.since.getTime(), window.until.getTime(), outage), window);
      if (!fitted) break;
      window = fitted;
    }
    const span = window.until.getTime() - window.since.getTime();
    expect(window.since.getTime()).toBeLessThan(start);
    expect(window.until.getTime()).toBeGreaterThan(start + 35 * MINUTE);
    expect(span).toBeLessThanOrEqual(2.5 * HOUR);
    // The outage fills a good part of the chart, not two bars at an edge.
    const bars = histogram(window.since.getTime(), window.until.getTime(), outage);
    expect(bars.filter((b) => b.error > 0).length).toBeGreaterThanOrEqual(6);
  });

  it("keeps the period when the events spread over it, or there are none", () => {
    const spread = new Map([
      [since + HOUR, 1],
      [until - HOUR, 1],
    ]);
    expect(fitWindow(histogram(since, until, spread), { since: new Date(since), until: new Date(until) })).toBeNull();
    expect(fitWindow(histogram(since, until, new Map()), { since: new Date(since), until: new Date(until) })).toBeNull();
  });
});

describe("eventStackView", () => {
  it("shows a Sentry exception chain raised-first, newest frame first, with in-app frames and their source lines", () => {
    const context = {
      platform: "node",
      exception: {
        values: [
          { type: "Error", value: "connect ECONNREFUSED", stacktrace: { frames: [{ filename: "node:net", function: "TCPConnectWrap.afterConnect", lineno: 1555, in_app: false }] } },
          {
            type: "TypeError",
            value: "Cannot read properties of undefined (reading 'price')",
            stacktrace: {
              frames: [
                { filename: "/app/node_modules/express/lib/router/layer.js", function: "handle", lineno: 95, colno: 5 },
                { filename: "/app/src/cart.ts", function: "total", lineno: 12, colno: 7, pre_context: ["function total(items) {"], context_line: "  return items[0].price;", post_context: ["}"] },
              ],
            },
          },
        ],
      },
    };
    const view = eventStackView(context)!;
    expect(view.exceptions.map((e) => e.type)).toEqual(["TypeError", "Error"]);
    const [top, library] = view.exceptions[0]!.frames;
    expect(top).toMatchObject({ function: "total", file: "/app/src/cart.ts", lineno: 12, colno: 7, inApp: true, contextLine: "  return items[0].price;", preContext: ["function total(items) {"], postContext: ["}"] });
    expect(library).toMatchObject({ function: "handle", inApp: false, contextLine: null });
    expect(view.exceptions[1]!.frames[0]).toMatchObject({ file: "node:net", inApp: false });
  });

  it("parses a native context.stack string into frames, the application's marked in app", () => {
    const stack = [
      "TypeError: Cannot read properties of undefined (reading 'map')",
      "    at renderList (/srv/app/src/list.tsx:41:18)",
      "    at Array.forEach (<anonymous>)",
      "    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ].join("\n");
    const view = eventStackView({ stack })!;
    expect(view.exceptions).toHaveLength(1);
    expect(view.exceptions[0]!.type).toBe("TypeError");
    const frames = view.exceptions[0]!.frames;
    expect(frames[0]).toMatchObject({ function: "renderList", file: "/srv/app/src/list.tsx", lineno: 41, colno: 18, inApp: true });
    expect(frames.slice(1).every((f) => !f.inApp)).toBe(true);
  });

  it("is null without a stack", () => {
    expect(eventStackView(null)).toBeNull();
    expect(eventStackView({ orderId: "o1" })).toBeNull();
    expect(eventStackView({ exception: { values: [{ type: "Error", value: "no frames" }] } })).toBeNull();
  });
});
