/**
 * Whether this service runs behind a reverse proxy whose X-Forwarded-*
 * headers can be believed: only when the operator says so with
 * AUTH_TRUST_HOST=true (or 1). Without a proxy any client can send those
 * headers, so they name nothing.
 */
export function trustsProxyHeaders(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.AUTH_TRUST_HOST?.trim().toLowerCase();
  return value === "true" || value === "1";
}
