import http from "node:http";
import https from "node:https";
import net from "node:net";
import { settings } from "@/lib/config/settings";
import type { Notification } from "@/lib/alerts/messages";
import { signatureHeaders } from "@/lib/alerts/signing";
import { BlockedAddressError, guardedLookup, hostOf, isPrivateAddress } from "@/lib/alerts/webhook-address";
import { clipAnswer, type AlertChannel, type SendOutcome } from "@/lib/alerts/channels/types";

/**
 * A webhook channel: `body` turns a notification into the receiver's JSON;
 * the POST is signed (lib/alerts/signing.ts) and has one deadline for
 * connect, send and answer, so a slow receiver never holds the queue.
 * Redirects are not followed.
 */
export function webhookChannel(label: string, body: (n: Notification) => unknown): AlertChannel<"webhook"> {
  return {
    transport: "webhook",
    label,
    send: (notification, to, { timeoutMs }) => postSigned(to, JSON.stringify(body(notification)), notification, timeoutMs),
  };
}

async function postSigned(target: { url: string; secret: string }, body: string, n: Notification, timeoutMs: number): Promise<SendOutcome> {
  const { allowPrivateWebhooks } = settings().alerts;
  const url = new URL(target.url);
  const host = hostOf(url);
  if (!allowPrivateWebhooks && net.isIP(host) && isPrivateAddress(host)) return { ok: false, retryable: false, answer: new BlockedAddressError().message };
  const headers = {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    "User-Agent": "Telltale-Alerts/1",
    ...signatureHeaders(target.secret, body, n.sentAt),
    "X-Telltale-Delivery": n.deliveryId,
  };
  try {
    const status = await post(url, headers, body, timeoutMs, allowPrivateWebhooks);
    if (status >= 200 && status < 300) return { ok: true, answer: `HTTP ${status}` };
    if (status >= 300 && status < 400) return { ok: false, retryable: false, answer: `HTTP ${status} (redirects are not followed: use the final URL)` };
    // Timeouts, rate limits and server errors may pass later; other 4xx will not.
    return { ok: false, retryable: status === 408 || status === 429 || status >= 500, answer: `HTTP ${status}` };
  } catch (error) {
    if (error instanceof BlockedAddressError) return { ok: false, retryable: false, answer: error.message };
    const e = error as { name?: string; code?: string };
    if (e.name === "TimeoutError" || e.name === "AbortError") return { ok: false, retryable: true, unreachable: true, answer: `no answer within ${timeoutMs} ms` };
    return { ok: false, retryable: true, unreachable: true, answer: clipAnswer(`connection failed (${e.code ?? e.name ?? "error"})`) };
  }
}

function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<number> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<number>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers,
        // Our lookup, so the address checked is the one connected to; no
        // pooled sockets, so every delivery is checked.
        lookup: guardedLookup(allowPrivate),
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        // The status is the answer; the body is not read.
        response.on("error", () => {});
        response.destroy();
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
