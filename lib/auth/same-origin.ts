import { settings } from "@/lib/config/settings";
import { errors } from "@/lib/http/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for cookie-authenticated requests that change state: a
 * browser always sends Origin (or at least Referer) on a cross-site POST,
 * DELETE or PATCH, so one naming another host is refused with 403. A request
 * with neither header comes from a non-browser client (curl, a script),
 * which cannot be driven by another site and so is let through. SameSite=Lax
 * on the session cookie is the second layer.
 */
export function assertSameOrigin(request: Request, { requireBrowserProof = false }: { requireBrowserProof?: boolean } = {}): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site") throw crossOrigin();
  // A browser says where a request comes from in Sec-Fetch-Site, whatever the
  // page's Referrer-Policy (a no-referrer page's own form POST carries
  // `Origin: null`). Where that must be this site, anything else is refused.
  if (requireBrowserProof && fetchSite !== null) {
    if (fetchSite !== "same-origin") throw crossOrigin();
    return;
  }
  const source = request.headers.get("origin") ?? request.headers.get("referer");
  if (source === null) return;
  const host = hostOf(source); // `Origin: null` (sandboxed frames, odd redirects) has none
  if (!host || !allowedHosts(request).has(host)) throw crossOrigin();
}

function crossOrigin() {
  return errors.forbidden("Cross-site request refused: send state-changing requests from this site's own pages.");
}

function hostOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** This service's own host names as the request and configuration see them. */
function allowedHosts(request: Request): Set<string> {
  const hosts = new Set<string>();
  const add = (value: string | null | undefined) => {
    const host = value?.split(",")[0]?.trim().toLowerCase().replace(/:(80|443)$/, "");
    if (host) hosts.add(host);
  };
  add(hostOf(request.url));
  add(request.headers.get("host"));
  // Set by the reverse proxy in front of us; a cross-site page cannot add it
  // (a custom header needs a CORS preflight, which we never grant).
  add(request.headers.get("x-forwarded-host"));
  const configured = settings().auth.url;
  if (configured) add(hostOf(configured));
  return hosts;
}
