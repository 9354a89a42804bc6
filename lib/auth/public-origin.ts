import { settings } from "@/lib/config/settings";

// A host name or IP literal with an optional port, nothing that could carry a
// path, credentials or a second URL.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function firstValue(header: string | null): string | undefined {
  return header?.split(",")[0]?.trim() || undefined;
}

/**
 * The origin users reach this service at, when there is no request to ask
 * (alert notifications, operator commands): AUTH_URL's origin, else this
 * server on localhost.
 */
export function configuredOrigin(): string {
  return authUrlOrigin() ?? `http://localhost:${settings().port}`;
}

function authUrlOrigin(): string | null {
  const configured = settings().auth.url;
  if (!configured) return null;
  try {
    return new URL(configured).origin;
  } catch {
    return null;
  }
}

/**
 * The origin users reach this service at, for links in mails: AUTH_URL when
 * set (what Auth.js uses too); else, behind a trusted proxy
 * (AUTH_TRUST_HOST=true), the host and scheme it forwards; else the request's
 * own Host. X-Forwarded-* from anyone else is ignored: a client could
 * otherwise make invitation links point at its own site.
 */
export function publicOrigin(request: Request): string {
  const configured = authUrlOrigin();
  if (configured) return configured;
  const url = new URL(request.url);
  const trusted = settings().auth.trustHost;
  const candidates = [trusted ? firstValue(request.headers.get("x-forwarded-host")) : undefined, request.headers.get("host")?.trim()];
  const host = candidates.find((h): h is string => !!h && HOST.test(h)) ?? url.host;
  const proto = (trusted ? firstValue(request.headers.get("x-forwarded-proto")) : undefined) ?? url.protocol.replace(/:$/, "");
  return `${proto === "https" ? "https" : "http"}://${host}`;
}
