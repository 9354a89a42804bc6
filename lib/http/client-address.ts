import { settings } from "@/lib/config/settings";

/** Set by the server on every request (lib/http/node-guard.ts): the socket's remote address. */
export const CLIENT_ADDRESS_HEADER = "x-telltale-client-address";

const stamped = Symbol.for("telltale.clientAddressStamped");
const flags = globalThis as { [stamped]?: boolean };

/**
 * Says that this process stamps CLIENT_ADDRESS_HEADER on every request
 * (lib/http/node-guard.ts, overwriting whatever a client sent). Where nothing
 * does (a host that does not run requests through Node's http.Server), the
 * header could come from the client, so it is not read.
 */
export function trustClientAddressHeader(): void {
  flags[stamped] = true;
}

/**
 * The client's address, for per-address limits. With TRUST_PROXY_HOPS=0
 * (the default) it is the socket's address and X-Forwarded-For is ignored:
 * any client can write that header. With N trusted proxies in front, each
 * appends what it saw, so the client is N entries from the right of the
 * chain (X-Forwarded-For, then the socket). "unknown" when there is no
 * socket (a handler called directly).
 */
export function clientAddress(headers: { get(name: string): string | null }): string {
  const socket = (flags[stamped] && headers.get(CLIENT_ADDRESS_HEADER)?.trim()) || "unknown";
  const hops = settings().auth.trustProxyHops;
  if (hops === 0) return socket;
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  chain.push(socket);
  return chain[Math.max(0, chain.length - 1 - hops)]!;
}
