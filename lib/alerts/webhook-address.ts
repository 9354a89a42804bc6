import dns from "node:dns";
import net from "node:net";

/**
 * Where a webhook may point. A project owner chooses the URL and the server
 * calls it, so without a guard anyone who can create a project could make
 * the server POST to its own loopback, the cloud metadata service
 * (169.254.169.254) or the private network (SSRF). By default those
 * addresses are refused twice: when the rule is created (a literal address,
 * `localhost`) and, since a name can resolve anywhere (and differently later:
 * DNS rebinding), on every delivery, on the addresses the connection actually
 * uses. ALERTS_ALLOW_PRIVATE_WEBHOOKS=true turns the guard off (a receiver on
 * the same network, the tests).
 */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["::ffff:0:0", 96], // IPv4-mapped: checked as IPv4 by BlockList too
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["2001:db8::", 32], // documentation
] as const) {
  blocked.addSubnet(address, prefix, "ipv6");
}

/** True for loopback, private, link-local and other non-public addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return blocked.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/** Why a webhook URL is refused when the rule is created, or null. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "Must be an absolute http:// or https:// URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "Must be an http:// or https:// URL.";
  if (!url.hostname) return "Must name a host.";
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (host === "localhost" || host.endsWith(".localhost") || isPrivateAddress(host)) {
    return "Must not point at a loopback, private or link-local address (the server would call its own network). An operator can allow it with ALERTS_ALLOW_PRIVATE_WEBHOOKS=true.";
  }
  return null;
}

/** A delivery refused because the host resolved to a non-public address. */
export class BlockedAddressError extends Error {
  constructor() {
    super("refused: the host resolves to a loopback, private or link-local address");
    this.name = "BlockedAddressError";
  }
}

/**
 * A `lookup` for http.request that refuses a host any of whose addresses is
 * non-public, so the address checked is the address connected to. (A literal
 * IP skips lookup: callers check those with isPrivateAddress first.)
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate && list.some((a) => isPrivateAddress(a.address))) return callback(new BlockedAddressError(), "", 0);
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      callback(null, first.address, first.family);
    });
  };
}
