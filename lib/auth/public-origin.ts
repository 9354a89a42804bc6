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
 * `request` at the origin the user reached (publicOrigin), for Auth.js,
 * which takes where to send the browser after sign-in from the request's
 * URL: Next.js hands route handlers http://127.0.0.1:… as "localhost", a
 * redirect to another origin than the page's, which the page's CSP
 * (form-action 'self') blocks. With AUTH_URL set, the request is left as
 * it is: next-auth puts it at AUTH_URL itself (and reads Next.js's own
 * request type to do so).
 */
export async function atPublicOrigin(request: Request): Promise<Request> {
  if (authUrlOrigin()) return request;
  const url = new URL(request.url);
  const origin = publicOrigin(request);
  if (url.origin === origin) return request;
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  return new Request(`${origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, signal: request.signal });
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
