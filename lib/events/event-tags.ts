import { sql, type RawBuilder } from "kysely";
import { MAX_TAG_VALUE_CHARS, type EventUser } from "@/lib/events/schema";

/** What an event's tag breakdowns are made from. */
export type TaggedEvent = {
  release: string | null;
  environment: string | null;
  user: EventUser | null;
  tags: Record<string, string> | null;
  context: Record<string, unknown> | null;
};

/**
 * The [key, value] pairs an event adds to its issue's tag breakdowns: the
 * built-in ones (environment, release, user, and the Sentry contexts and
 * request an SDK sends: browser, os, runtime, device, url, transaction,
 * server_name), then the event's own tags, which win over a built-in one of
 * the same name. `level` is not among them: the counts per level
 * already give that breakdown. Null when there is nothing to count.
 */
export function eventTagPairs(event: TaggedEvent): [string, string][] | null {
  const tags = new Map<string, string>();
  const add = (key: string, value: unknown) => {
    if (typeof value !== "string") return;
    const text = value.trim();
    if (text !== "") tags.set(key, text.length > MAX_TAG_VALUE_CHARS ? text.slice(0, MAX_TAG_VALUE_CHARS) : text);
  };
  add("environment", event.environment);
  add("release", event.release);
  if (event.user) add("user", event.user.id ?? event.user.email ?? event.user.ip_address ?? event.user.username);
  const context = event.context;
  if (context) {
    const contexts = asObject(context.contexts);
    if (contexts) {
      add("browser", nameAndVersion(contexts.browser));
      add("os", nameAndVersion(contexts.os));
      add("runtime", nameAndVersion(contexts.runtime));
      const device = asObject(contexts.device);
      if (device) add("device", device.model ?? device.family ?? device.name);
    }
    const request = asObject(context.request);
    if (request && typeof request.url === "string") add("url", request.url.split(/[?#]/, 1)[0]);
    add("transaction", context.transaction);
    add("server_name", context.server_name);
  }
  if (event.tags) for (const [key, value] of Object.entries(event.tags)) add(key, value);
  return tags.size > 0 ? [...tags] : null;
}

function asObject(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** "Chrome 131.0.0", "Linux 6.1", "node v20.20.2": Sentry's {name, version} contexts as one value. */
function nameAndVersion(value: unknown): string | undefined {
  const o = asObject(value);
  if (!o || typeof o.name !== "string") return undefined;
  return typeof o.version === "string" && o.version !== "" ? `${o.name} ${o.version}` : o.name;
}

/** The keys eventTagPairs derives from an event's fields and context, in the order a breakdown lists them. */
export const BUILT_IN_TAG_KEYS = ["level", "environment", "release", "user", "browser", "os", "runtime", "device", "url", "transaction", "server_name"] as const;

/** SQL, on a row of events: `{name, version}` at `path` of the context as eventTagPairs joins it. */
function nameAndVersionSql(path: string[]): RawBuilder<string | null> {
  const at = (field: string) => sql`(${sql.ref("context")} #> ${sql.val([...path, field])}::text[])`;
  return sql<string | null>`CASE WHEN jsonb_typeof(${at("name")}) = 'string' THEN
      CASE WHEN jsonb_typeof(${at("version")}) = 'string' AND ${at("version")} #>> '{}' <> '' THEN (${at("name")} #>> '{}') || ' ' || (${at("version")} #>> '{}')
      ELSE ${at("name")} #>> '{}' END END`;
}

/** SQL, on a row of events: the context's string at `path`, else null. */
function contextStringSql(path: string[]): RawBuilder<string | null> {
  const at = sql`(${sql.ref("context")} #> ${sql.val(path)}::text[])`;
  return sql<string | null>`CASE WHEN jsonb_typeof(${at}) = 'string' THEN ${at} #>> '{}' END`;
}

/**
 * SQL, on a row of events: the value eventTagPairs gives the event for
 * `key` (null when it has none), so that "events with tag key:value" finds
 * exactly the events a breakdown counted under that value. `level` is the
 * event's level.
 */
export function eventTagValueSql(key: string): RawBuilder<string | null> {
  let builtIn: RawBuilder<string | null>;
  switch (key) {
    case "level":
      return sql<string>`${sql.ref("level")}::text`;
    case "environment":
    case "release":
      builtIn = sql<string | null>`${sql.ref(key)}`;
      break;
    case "user":
      builtIn = sql<string | null>`coalesce(${sql.ref("user_info")} ->> 'id', ${sql.ref("user_info")} ->> 'email', ${sql.ref("user_info")} ->> 'ip_address', ${sql.ref("user_info")} ->> 'username')`;
      break;
    case "browser":
    case "os":
    case "runtime":
      builtIn = nameAndVersionSql(["contexts", key]);
      break;
    case "device":
      builtIn = sql<string | null>`coalesce(${contextStringSql(["contexts", "device", "model"])}, ${contextStringSql(["contexts", "device", "family"])}, ${contextStringSql(["contexts", "device", "name"])})`;
      break;
    case "url":
      builtIn = sql<string | null>`split_part(split_part(${contextStringSql(["request", "url"])}, '?', 1), '#', 1)`;
      break;
    case "transaction":
    case "server_name":
      builtIn = contextStringSql([key]);
      break;
    default:
      builtIn = sql<string | null>`NULL::text`;
  }
  // The event's own tags win over a built-in one of the same name; values are trimmed and bounded as at ingest.
  return sql<string | null>`left(btrim(coalesce(${sql.ref("tags")} ->> ${key}, ${builtIn})), ${MAX_TAG_VALUE_CHARS})`;
}
