/**
 * npm run bench:request-cpu: the CPU the app's own code spends on one
 * SDK-sized event (harness/bench/sdk-events.ts), in this process, without
 * Next.js, the network or the database: for the native route, reading the
 * body from a Request (lib/http/read-json.ts), validating it and making its
 * row (grouping, tag pairs), and the statement's JSON of the row; for the
 * envelope route, parsing the envelope, mapping its event and the same row
 * and JSON. CPU time (process.cpuUsage), not wall time, so that a loaded
 * host's waiting counts less; the lowest of BENCH_REPEATS (default 8)
 * repeats of BENCH_ROUNDS (default 25) passes over 300 events, for code
 * versions compared on one machine, not a figure of the server.
 */
import { envelopeOf, nativeEventOf, sdkEventSampler } from "@/harness/bench/sdk-events";
import { ingestBody, newEventRow, parseEventBody } from "@/lib/ingest/ingest";
import { parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents } from "@/lib/sentry/items";

const REPEATS = Number(process.env.BENCH_REPEATS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const EVENTS = 300;

async function main() {
  const work = sdkEventSampler(11);
  const now = new Date();
  const payloads = Array.from({ length: EVENTS }, (_, i) => work.sentryEvent(i.toString(16).padStart(32, "0"), now));
  const natives = await Promise.all(payloads.map((p) => nativeEventOf(structuredClone(p), "cbenchproject")));
  const nativeBodies = natives.map((n) => new TextEncoder().encode(JSON.stringify(n)));
  const envelopes = payloads.map((p) => Buffer.from(envelopeOf(p, now)));
  // What the statement's JSON.stringify writes of a row (lib/ingest/statement.ts).
  const encoded = (row: ReturnType<typeof newEventRow>) => JSON.stringify([row.id, row.issueHash, row.level, row.message, row.context, row.release, row.environment, row.tags, row.user, row.tagPairs]).length;
  const routes: Record<string, (i: number) => Promise<number> | number> = {
    "POST /api/events": async (i) => {
      const body = nativeBodies[i]!;
      const request = new Request("http://bench/api/events", { method: "POST", body, headers: { "content-type": "application/json", "content-length": String(body.byteLength) } });
      return encoded(newEventRow(parseEventBody(await ingestBody.single(request)), "key", now));
    },
    "POST /api/<n>/envelope/": (i) => encoded(newEventRow(envelopeToEvents(parseEnvelope(envelopes[i]!), { projectId: "p", clientAddress: "192.0.2.1" }).events[0]!.event, "key", now)),
  };
  const lowest = new Map<string, number>();
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (const [route, run] of Object.entries(routes)) {
      let sink = 0;
      const start = process.cpuUsage();
      for (let round = 0; round < ROUNDS; round++) for (let i = 0; i < EVENTS; i++) sink += await run(i);
      const used = process.cpuUsage(start);
      if (sink === 0) throw new Error("nothing was encoded");
      const us = (used.user + used.system) / (ROUNDS * EVENTS);
      lowest.set(route, Math.min(lowest.get(route) ?? Infinity, us));
    }
  }
  console.log(`events of ${nativeBodies[0]!.byteLength} bytes (native) and ${envelopes[0]!.byteLength} (envelope); CPU µs per event, lowest of ${REPEATS} repeats:`);
  for (const [route, us] of lowest) console.log(`${route.padEnd(26)} ${us.toFixed(1)}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
