/**
 * npm run bench:json-scan: what the strict JSON reads add to JSON.parse on
 * SDK-sized events (harness/bench/sdk-events.ts): the native batch body of
 * 100 events (lib/http/strict-json.ts) and 100 Sentry event payloads
 * (lib/sentry/json.ts); and validating the batch's events with and without
 * the raw walk (lib/events/schema.ts, skipped when the text vouches). The minimum of 30 runs each, in this process: a
 * comparison of code versions on one machine, not a figure of the server.
 */
import { nativeEventOf, sdkEventSampler } from "@/harness/bench/sdk-events";

async function main() {
  const { parseStrictJson } = await import("@/lib/http/strict-json");
  const { parseSdkJson } = await import("@/lib/sentry/json");
  const { MAX_BATCH_BODY_DEPTH } = await import("@/lib/events/schema");
  const { parseEventBatchBody } = await import("@/lib/ingest/ingest");
  const work = sdkEventSampler(11);
  const now = new Date();
  const payloads = Array.from({ length: 100 }, (_, i) => work.sentryEvent(i.toString(16).padStart(32, "0"), now));
  const batch = JSON.stringify({ events: await Promise.all(payloads.map((p) => nativeEventOf(p, "cbenchproject"))) });
  const texts = payloads.map((p) => JSON.stringify(p));
  const time = (name: string, fn: () => unknown) => {
    const runs: number[] = [];
    for (let k = 0; k < 30; k++) {
      const t0 = performance.now();
      fn();
      runs.push(performance.now() - t0);
    }
    return { name, ms: Math.min(...runs) };
  };
  const rows = [
    time("JSON.parse, batch of 100", () => JSON.parse(batch)),
    time("parseStrictJson, batch of 100", () => parseStrictJson(batch, { maxDepth: MAX_BATCH_BODY_DEPTH })),
    time("JSON.parse, 100 Sentry payloads", () => texts.forEach((t) => JSON.parse(t))),
    time("parseSdkJson, 100 Sentry payloads", () => texts.forEach((t) => parseSdkJson(t))),
  ];
  const read = parseStrictJson(batch, { maxDepth: MAX_BATCH_BODY_DEPTH });
  rows.push(
    time("validating 100 events, walked", () => parseEventBatchBody({ value: read.value, problems: [] })),
    time("validating 100 events, text vouched", () => parseEventBatchBody({ value: read.value, problems: [], plain: { maxDepth: MAX_BATCH_BODY_DEPTH } })),
  );
  console.log(`batch body ${batch.length.toLocaleString("en-US")} characters; Sentry payloads ${Math.round(texts.reduce((n, t) => n + t.length, 0) / 100)} characters each`);
  for (const r of rows) console.log(`${r.name.padEnd(36)} ${r.ms.toFixed(3)} ms (${((r.ms / 100) * 1000).toFixed(1)} µs per event)`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
