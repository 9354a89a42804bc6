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
