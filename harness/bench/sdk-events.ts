/**
 * SDK-sized events for bench:ingest and bench:profile: what @sentry/node
 * sends for an exception (about 4 KB: the exception with 20 frames, 6
 * breadcrumbs, contexts, the request, the SDK, a release, an environment,
 * a user and 5 tags), drawn from the same ~1,000 templates and Zipf
 * distribution as the grouping workload (harness/bench/workload.ts). Each
 * template has frames of its own (in-app functions named after it), so
 * stack-aware grouping still makes about 1,000 issues.
 *
 * The same event is sent three ways: as a Sentry envelope, as the native
 * event the envelope maps to (lib/sentry/map-event.ts, so both routes store
 * the same row), and as rows of a COPY.
 */
import { sampler, templates } from "@/harness/bench/workload";

/** In an envelope, the place of its event_id: wrk's script puts a new id there for each request. */
export const EVENT_ID_PLACEHOLDER = "EVENTIDXXXXXXXXXXXXXXXXXXXXXXXXX";

/** The services (and their library frames) the events come from; the OTLP round's logs too (harness/bench/otlp-logs.ts). */
export const SERVICES = ["checkout", "billing", "search", "auth", "catalog", "shipping", "notifications", "inventory", "reports", "gateway"];
export const LIBRARY_FRAMES: [string, string][] = [
  ["node:internal/process/task_queues", "processTicksAndRejections"],
  ["/app/node_modules/express/lib/router/layer.js", "Layer.handle [as handle_request]"],
  ["/app/node_modules/express/lib/router/route.js", "next"],
  ["/app/node_modules/express/lib/router/route.js", "Route.dispatch"],
  ["/app/node_modules/express/lib/router/index.js", "Function.process_params"],
  ["/app/node_modules/express/lib/router/index.js", "next"],
  ["/app/node_modules/body-parser/lib/read.js", "invokeCallback"],
  ["/app/node_modules/raw-body/index.js", "done"],
  ["/app/node_modules/pg-pool/index.js", "Pool.connect"],
  ["/app/node_modules/pg/lib/client.js", "Client._handleReadyForQuery"],
  ["/app/node_modules/pg-protocol/dist/parser.js", "Parser.parse"],
  ["node:events", "Socket.emit"],
  ["node:internal/streams/readable", "addChunk"],
  ["node:internal/streams/readable", "readableAddChunk"],
];
/** The event's own tags (bench:ingest checks their counts). */
export const SDK_EVENT_TAG_KEYS = ["region", "service", "http.method", "customer_tier", "feature_flag"] as const;
const RELEASES = ["shop@2.14.0", "shop@2.14.1", "shop@2.15.0"];
const TYPES = ["Error", "TypeError", "RangeError"];

export type SdkEventSampler = ReturnType<typeof sdkEventSampler>;

export function sdkEventSampler(seed = 1) {
  const work = sampler(seed);
  const random = work.random;
  const all = templates();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  /** The template's in-app frames: the same for each of its events (grouping), lines differ. */
  const inAppFrames = (t: number, service: string) => {
    const slug = all[t]!.pattern.replace(/[^A-Za-z]+/g, " ").trim().split(" ").slice(0, 3).join("");
    return [
      [`/app/src/${service}/handlers/${slug.slice(0, 24)}.ts`, `handle${slug.slice(0, 24)}`],
      [`/app/src/${service}/service.ts`, `${service}Service.run${t % 17}`],
      [`/app/src/${service}/repository.ts`, `load${t % 23}`],
      ["/app/src/lib/http/route.ts", "withErrors"],
      ["/app/src/lib/http/route.ts", "dispatch"],
      ["/app/src/server.ts", "handleRequest"],
    ] as [string, string][];
  };

  /** A Sentry event payload as @sentry/node 11 sends it, at `at`, with `eventId`. */
  function sentryEvent(eventId: string, at: Date): Record<string, unknown> {
    const { level, message, template } = work.draw();
    const service = SERVICES.find((s) => all[template]!.pattern.includes(s)) ?? "gateway";
    const inApp = inAppFrames(template, service);
    // Sentry orders frames oldest first: library frames below, the app's on top.
    const frames = [...LIBRARY_FRAMES, ...inApp].map(([filename, fn], i) => ({
      filename,
      function: fn,
      lineno: 10 + Math.floor(random() * 400),
      colno: 1 + Math.floor(random() * 40),
      in_app: i >= LIBRARY_FRAMES.length,
    }));
    const seconds = at.getTime() / 1000;
    const userNumber = Math.floor(random() ** 2 * 50_000);
    const method = pick(["GET", "GET", "POST", "PUT", "DELETE"]);
    const route = `/api/${service}/${Math.floor(random() * 1000)}`;
    const breadcrumbs = Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? { timestamp: seconds - 8 + i, category: "http", type: "http", data: { method: "GET", url: `http://${pick(SERVICES)}.internal:8080/v1/items?page=${i}`, status_code: 200 } }
        : { timestamp: seconds - 8 + i, category: "console", level: "info", message: `${service}: step ${i} done in ${Math.floor(random() * 200)}ms` },
    );
    return {
      event_id: eventId,
      timestamp: seconds,
      platform: "node",
      level: level === "warn" ? "warning" : level,
      server_name: `web-${1 + Math.floor(random() * 12)}`,
      release: pick(RELEASES),
      environment: random() < 0.85 ? "production" : "staging",
      user: { id: `u${userNumber}`, email: `user${userNumber}@example.com`, ip_address: `10.0.${Math.floor(random() * 255)}.${Math.floor(random() * 255)}` },
      tags: {
        region: pick(["eu-west-1", "us-east-1", "ap-south-1"]),
        service,
        "http.method": method,
        customer_tier: random() < 0.7 ? "free" : random() < 0.8 ? "pro" : "enterprise",
        feature_flag: pick(["new-checkout", "none", "dark-launch"]),
      },
      transaction: `${method} ${route.replace(/\d+$/, ":id")}`,
      exception: {
        values: [{ type: TYPES[template % TYPES.length], value: message, mechanism: { type: "onuncaughtexception", handled: false }, stacktrace: { frames } }],
      },
      breadcrumbs,
      request: {
        method,
        url: `https://shop.example.com${route}?ref=${hex(6)}`,
        headers: { host: "shop.example.com", "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", accept: "application/json" },
      },
      contexts: {
        trace: { trace_id: hex(32), span_id: hex(16) },
        runtime: { name: "node", version: "v20.19.2" },
        os: { kernel_version: "6.1.0-28-amd64", name: "Linux", version: "6.1.0-28-amd64" },
        app: { app_start_time: new Date(at.getTime() - 3_600_000).toISOString(), app_memory: 180_000_000 + Math.floor(random() * 50_000_000) },
        device: { boot_time: new Date(at.getTime() - 86_400_000).toISOString(), arch: "x64", memory_size: 8_323_334_144, free_memory: 2_100_000_000, processor_count: 2, cpu_description: "Intel(R) Xeon(R) CPU @ 2.20GHz" },
      },
      sdk: {
        name: "sentry.javascript.node",
        version: "11.12.0",
        integrations: ["InboundFilters", "LinkedErrors", "RequestData", "Console", "Http", "OnUncaughtException", "ContextLines", "Context"],
        packages: [{ name: "npm:@sentry/node", version: "11.12.0" }],
      },
    };
  }

  return { random, sentryEvent };
}

/**
 * Release, environment, user and the SDK events' own tags, drawn as
 * sentryEvent draws them, for events that are otherwise small (the
 * prefill): a database that has run for a while holds tag counts in the
 * proportions the runs add to, and PostgreSQL plans the ingest statement
 * for tables of that size, not for empty ones.
 */
export function sdkEventFields(random: () => number, service: string) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const userNumber = Math.floor(random() ** 2 * 50_000);
  return {
    release: pick(RELEASES),
    environment: random() < 0.85 ? "production" : "staging",
    user: { id: `u${userNumber}`, email: `user${userNumber}@example.com` },
    tags: {
      region: pick(["eu-west-1", "us-east-1", "ap-south-1"]),
      service,
      "http.method": pick(["GET", "GET", "POST", "PUT", "DELETE"]),
      customer_tier: random() < 0.7 ? "free" : random() < 0.8 ? "pro" : "enterprise",
      feature_flag: pick(["new-checkout", "none", "dark-launch"]),
    } as Record<string, string>,
  };
}

/** A Sentry envelope of one event, as @sentry/node sends it (the event_id in its header and its payload). */
export function envelopeOf(event: Record<string, unknown>, sentAt: Date): string {
  const header = { event_id: event.event_id, sent_at: sentAt.toISOString(), sdk: { name: "sentry.javascript.node", version: "11.12.0" } };
  return `${JSON.stringify(header)}\n${JSON.stringify({ type: "event" })}\n${JSON.stringify(event)}\n`;
}

/** The native event (POST /api/events) an envelope's event maps to: the fields as the Sentry route stores them. */
export async function nativeEventOf(sentry: Record<string, unknown>, projectId: string): Promise<Record<string, unknown>> {
  const { mapSentryEvent } = await import("@/lib/sentry/map-event");
  const { event } = mapSentryEvent(structuredClone(sentry), { projectId });
  const native: Record<string, unknown> = { level: event.level, message: event.message, projectId };
  if (event.context) native.context = event.context;
  if (event.timestamp) native.timestamp = event.timestamp.toISOString();
  for (const key of ["fingerprint", "release", "environment", "tags", "user"] as const) if (event[key] !== null) native[key] = event[key];
  return native;
}

export type RequestKind = "native" | "batch" | "envelope";

export type Requests = {
  /** wrk's script (its requests, and the ids the answers name written to `idsDir`). */
  script: string;
  idsDir: string;
  /** Bytes of one body (the first), for the report. */
  bodyBytes: number;
};

/**
 * Bodies for one run, written to `dir` (one a line; an envelope's newlines as
 * tabs), and the wrk script that sends them in turn: `count` bodies (batches
 * of `batch` events) drawn afresh with `seed`, stamped now. Envelopes get a
 * new event_id for each request (the route is idempotent by event_id).
 */
export async function prepareRequests(
  dir: string,
  kind: RequestKind,
  options: { projectId: string; apiKey: string; publicKey: string; projectNumber: number; count: number; batch?: number; seed: number },
): Promise<Requests> {
  const fs = await import("node:fs");
  const path = await import("node:path");
  const { validateEvent } = await import("@/lib/events/schema");
  const work = sdkEventSampler(options.seed);
  const now = new Date();
  const lines: string[] = [];
  const salt = (options.seed >>> 0).toString(16).padStart(8, "0").slice(-8);
  for (let i = 0; i < options.count; i++) {
    if (kind === "envelope") {
      lines.push(envelopeOf(work.sentryEvent(EVENT_ID_PLACEHOLDER, now), now).replaceAll("\n", "\t"));
      continue;
    }
    const events: Record<string, unknown>[] = [];
    for (let k = 0; k < (kind === "batch" ? (options.batch ?? 100) : 1); k++) {
      const native = await nativeEventOf(work.sentryEvent("0".repeat(32), now), options.projectId);
      // The event id of the mapping is the placeholder's; a native event has none of its own.
      delete ((native.context as Record<string, unknown>).sentry as Record<string, unknown>).event_id;
      const check = validateEvent(native);
      if (!check.event) throw new Error(`the bench's native event is refused: ${JSON.stringify(check.problems)}`);
      events.push(native);
    }
    lines.push(kind === "batch" ? JSON.stringify({ events }) : JSON.stringify(events[0]));
  }
  const bodies = path.join(dir, `${kind}-bodies.txt`);
  const idsDir = path.join(dir, `${kind}-ids`);
  fs.mkdirSync(idsDir, { recursive: true });
  fs.writeFileSync(bodies, lines.join("\n") + "\n");
  const headers: Record<string, string> =
    kind === "envelope"
      ? { "Content-Type": "application/x-sentry-envelope", "X-Sentry-Auth": `Sentry sentry_key=${options.publicKey}, sentry_version=7, sentry_client=sentry.javascript.node/11.12.0` }
      : { "Content-Type": "application/json", Authorization: `Bearer ${options.apiKey}` };
  const requestPath = kind === "envelope" ? `/api/${options.projectNumber}/envelope/` : kind === "batch" ? "/api/events/batch" : "/api/events";
  const lua = (s: string) => JSON.stringify(s);
  const script = path.join(dir, `${kind}.lua`);
  fs.writeFileSync(
    script,
    `
local bodies = {}
local envelope = ${kind === "envelope"}
local counter = 0
local sent = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

function init(args)
  ids = io.open(${lua(idsDir)} .. "/ids-" .. id .. ".txt", "w")
  ids:setvbuf("line")
  wrk.method = "POST"
  wrk.path = ${lua(requestPath)}
${Object.entries(headers)
  .map(([k, v]) => `  wrk.headers[${lua(k)}] = ${lua(v)}`)
  .join("\n")}
  for line in io.lines(${lua(bodies)}) do
    if envelope then bodies[#bodies + 1] = (line:gsub("\\t", "\\n")) else bodies[#bodies + 1] = wrk.format(nil, nil, nil, line) end
  end
end

-- Native bodies are made ahead (the server makes the ids); an envelope
-- gets an event_id of its own: the run's salt, the thread, the request.
function request()
  sent = sent + 1
  local body = bodies[(sent - 1) % #bodies + 1]
  if not envelope then return body end
  local eventId = string.format("%s%08x%016x", ${lua(salt)}, id, sent)
  return wrk.format(nil, nil, nil, (body:gsub(${lua(EVENT_ID_PLACEHOLDER)}, eventId)))
end

function response(status, headers, body)
  if status >= 300 then
    failures = failures or io.open(${lua(idsDir)} .. "/failures-" .. id .. ".txt", "w")
    failures:write(status, " ", (body:sub(1, 300):gsub("\\n", " ")), "\\n")
    failures:flush()
  elseif status == 200 or status == 201 then
    if ${kind === "batch"} then
      for one in body:gmatch('"([0-9a-f%-]+)"') do if #one == 36 then ids:write(one, "\\n") end end
    else
      local one = body:match('"id":"([0-9a-f%-]+)"')
      if one then ids:write(one, "\\n") end
    end
  end
end
`,
  );
  return { script, idsDir, bodyBytes: Buffer.byteLength(kind === "envelope" ? lines[0]!.replaceAll("\t", "\n") : lines[0]!) };
}
