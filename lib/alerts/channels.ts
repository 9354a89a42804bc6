import http from "node:http";
import https from "node:https";
import net from "node:net";
import { settings } from "@/lib/config/settings";
import { sendMail } from "@/lib/mail/send-mail";
import { alertMail, webhookBody, type Notification } from "@/lib/alerts/messages";
import type { WebhookFormat } from "@/lib/alerts/schemas";
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureOf, TIMESTAMP_HEADER } from "@/lib/alerts/signing";
import { BlockedAddressError, guardedLookup, hostOf, isPrivateAddress } from "@/lib/alerts/webhook-address";

/** What a channel answered: sent, or not, and whether trying again could change that. */
export type SendOutcome = { ok: true; answer: string } | { ok: false; retryable: boolean; answer: string };

const MAX_ANSWER_CHARS = 300;
const clip = (text: string) => (text.length <= MAX_ANSWER_CHARS ? text : `${text.slice(0, MAX_ANSWER_CHARS - 1)}…`);

/** One mail to every recipient (team members, who see each other's addresses in the project anyway). */
export async function sendAlertMail(recipients: string[], notification: Notification): Promise<SendOutcome> {
  if (recipients.length === 0) return { ok: false, retryable: false, answer: "no recipient is a member of the project any more" };
  if (!settings().mail.server) return { ok: false, retryable: false, answer: "EMAIL_SERVER is not set: no mail can be sent" };
  try {
    await sendMail(alertMail(notification, recipients.join(", ")));
    return { ok: true, answer: `mail accepted for ${recipients.length} recipient${recipients.length === 1 ? "" : "s"}` };
  } catch (error) {
    // The SMTP reply, not the error message: that could quote the server URL.
    const e = error as { responseCode?: number; response?: string; code?: string };
    const answer = e.responseCode ? `SMTP ${e.responseCode} ${e.response ?? ""}`.trim() : `mail not sent (${e.code ?? "error"})`;
    // 5xx replies are permanent by SMTP's own rules; everything else may pass later.
    return { ok: false, retryable: !(e.responseCode && e.responseCode >= 500), answer: clip(answer) };
  }
}

/**
 * POSTs a signed notification. The body is signed as sent
 * (`X-Telltale-Signature: sha256=<hex HMAC-SHA256 of the raw body>`); the
 * whole call (connect, send, answer) has ALERTS_WEBHOOK_TIMEOUT_MS, so a
 * slow receiver never holds the processor; redirects are not followed.
 */
export async function sendAlertWebhook(
  target: { url: string; format: WebhookFormat; secret: string },
  notification: Notification,
): Promise<SendOutcome> {
  const { webhookTimeoutMs, allowPrivateWebhooks } = settings().alerts;
  const url = new URL(target.url);
  const host = hostOf(url);
  if (!allowPrivateWebhooks && net.isIP(host) && isPrivateAddress(host)) return { ok: false, retryable: false, answer: new BlockedAddressError().message };
  const body = webhookBody(notification, target.format);
  const headers = {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    "User-Agent": "Telltale-Alerts/1",
    [SIGNATURE_HEADER]: signatureOf(target.secret, body),
    [TIMESTAMP_HEADER]: String(Math.floor(notification.sentAt.getTime() / 1000)),
    [DELIVERY_HEADER]: notification.deliveryId,
  };
  try {
    const status = await post(url, headers, body, webhookTimeoutMs, allowPrivateWebhooks);
    if (status >= 200 && status < 300) return { ok: true, answer: `HTTP ${status}` };
    if (status >= 300 && status < 400) return { ok: false, retryable: false, answer: `HTTP ${status} (redirects are not followed: use the final URL)` };
    // Timeouts, rate limits and server errors may pass later; other 4xx will not.
    return { ok: false, retryable: status === 408 || status === 429 || status >= 500, answer: `HTTP ${status}` };
  } catch (error) {
    if (error instanceof BlockedAddressError) return { ok: false, retryable: false, answer: error.message };
    const e = error as { name?: string; code?: string };
    if (e.name === "TimeoutError" || e.name === "AbortError") return { ok: false, retryable: true, answer: `no answer within ${webhookTimeoutMs} ms` };
    return { ok: false, retryable: true, answer: clip(`connection failed (${e.code ?? e.name ?? "error"})`) };
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
