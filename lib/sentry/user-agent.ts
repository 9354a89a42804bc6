import Bowser from "bowser";
import { LRUCache } from "lru-cache";
import { isRecord } from "@/lib/sentry/fields";

/**
 * What Sentry's ingestion (Relay) derives from an event's request
 * User-Agent: `contexts.browser` and `contexts.os`, each only where the SDK
 * sent none. @sentry/browser sends the page's User-Agent in
 * `request.headers` and no browser context; a server SDK sends the
 * incoming request's, so its events name the end user's browser, while its
 * own `os` context (the server's) stays. Answers the contexts with what was
 * added, or null when nothing was (no User-Agent, nothing recognized, both
 * present).
 */
export function contextsWithUserAgent(request: Record<string, unknown> | null, contexts: unknown): Record<string, unknown> | null {
  const agent = userAgentOf(request);
  if (!agent) return null;
  const sent = isRecord(contexts) ? contexts : {};
  const needsBrowser = !isRecord(sent.browser);
  const needsOs = !isRecord(sent.os);
  if (!needsBrowser && !needsOs) return null;
  const parsed = parseAgent(agent);
  const added: Record<string, unknown> = {};
  if (needsBrowser && parsed.browser.name) added.browser = { type: "browser", name: parsed.browser.name, ...(parsed.browser.version ? { version: majorMinor(parsed.browser.version) } : {}) };
  const osVersion = parsed.os.versionName && parsed.os.name === "Windows" ? parsed.os.versionName : parsed.os.version;
  if (needsOs && parsed.os.name) added.os = { type: "os", name: parsed.os.name, ...(osVersion ? { version: osVersion } : {}) };
  return Object.keys(added).length > 0 ? { ...sent, ...added } : null;
}

/**
 * A parse costs more than the rest of an event's mapping steps
 * (docs/performance.md#figures-behind-the-code); an application's events
 * come from a few browsers, so the answers are kept.
 */
const parsedAgents = new LRUCache<string, Bowser.Parser.ParsedResult>({ max: 1_000 });

function parseAgent(agent: string): Bowser.Parser.ParsedResult {
  let parsed = parsedAgents.get(agent);
  if (!parsed) parsedAgents.set(agent, (parsed = Bowser.parse(agent)));
  return parsed;
}

/** "131.0" of "131.0.6778.85": a browser's tag groups its releases, not each build. */
function majorMinor(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

/** The User-Agent header of a Sentry request interface (headers as an object or as [name, value] pairs), at most 512 characters. */
function userAgentOf(request: Record<string, unknown> | null): string | null {
  const headers = request?.headers;
  let value: unknown;
  if (Array.isArray(headers)) {
    value = headers.find((pair) => Array.isArray(pair) && typeof pair[0] === "string" && pair[0].trim().toLowerCase() === "user-agent")?.[1];
  } else if (isRecord(headers)) {
    const name = Object.keys(headers).find((key) => key.trim().toLowerCase() === "user-agent");
    value = name === undefined ? undefined : headers[name];
  }
  return typeof value === "string" && value.trim() !== "" ? value.slice(0, 512) : null;
}
