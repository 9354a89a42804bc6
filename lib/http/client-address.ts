import net from "node:net";
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

/**
 * What per-address limits count under: an IPv4 address as it is (an IPv4
 * address written as IPv6, ::ffff:a.b.c.d, as IPv4), an IPv6 address as
 * its /64, "2001:db8:1:2::/64". One IPv6 host is routinely given a whole
 * /64, so counting single addresses would give it 2^64 budgets.
 */
export function addressBlock(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (net.isIPv4(bare)) return bare;
  if (!net.isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1]!;
  return `${expandIpv6(bare).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros ("::" and an embedded IPv4 tail expanded). */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
