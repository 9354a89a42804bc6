/**
 * The origin users reach this service at, for links in mails: AUTH_URL when
 * set (what Auth.js uses too), else the origin the request was made to, as
 * the reverse proxy reports it (X-Forwarded-Proto/Host) or as received.
 */
export function publicOrigin(request: Request): string {
  const configured = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL;
  if (configured) {
    try {
      return new URL(configured).origin;
    } catch {
      // fall through to the request's own origin
    }
  }
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || request.headers.get("host") || url.host;
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(/:$/, "");
  return `${proto === "https" ? "https" : "http"}://${host}`;
}
