/**
 * npm run bench:object-spread: what building an object costs on this
 * Node.js, per object, for the shapes the ingest path used to build; why the
 * ingest path lists an event's fields rather than spreading it
 * (docs/performance.md, "Building objects on Node.js 20").
 */
const N = 30_000;
const events = Array.from({ length: N }, (_, i) => ({
  level: "error",
  message: `Stripe API timeout after ${i}ms`,
  projectId: "cmwr2940k0000ag7d8nvoqx2n",
  context: JSON.parse('{"region":"eu-west-1","attempt":2}'),
  timestamp: null,
  fingerprint: null,
}));
const extra = { id: "0198c2d4-5a6b-7c8d-9e0f-a1b2c3d4e5f6", receivedAt: 1, occurredAt: 2, keyId: "k", issueHash: "h", issueTitle: "t" };

const shapes = {
  "{ ...event }": (e) => ({ ...e }),
  "{ ...event, id }": (e) => ({ ...e, id: extra.id }),
  "{ ...event, +6 fields } (the old toRows)": (e) => ({ ...e, id: extra.id, receivedAt: 1, occurredAt: 2, keyId: "k", issueHash: "h", issueTitle: "t" }),
  "Object.assign({}, event, extra)": (e) => Object.assign({}, e, extra),
  "every field listed (toRows now)": (e) => ({
    level: e.level, message: e.message, projectId: e.projectId, context: e.context, timestamp: e.timestamp, fingerprint: e.fingerprint,
    id: extra.id, receivedAt: 1, occurredAt: 2, keyId: "k", issueHash: "h", issueTitle: "t",
  }),
};

console.log(`Node.js ${process.version}, ${N.toLocaleString("en-US")} objects per run, best of 5 runs`);
for (const [name, build] of Object.entries(shapes)) {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const started = process.hrtime.bigint();
    const out = events.map(build);
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1000 / N);
    if (out.length !== N) throw new Error("unreachable");
  }
  console.log(`${best.toFixed(3).padStart(8)} µs  ${name}`);
}
