import { createTransport, type Transporter } from "nodemailer";
import { settings } from "@/lib/config/settings";

/** One outgoing message; every mail we send has a plain-text and an HTML part. */
export type MailMessage = { to: string; subject: string; text: string; html: string };

// One transport per SMTP URL, reused across requests (nodemailer keeps no
// connection open between messages unless pooled, so this is only config).
let cached: { url: string; transport: Transporter } | undefined;

function transportFor(url: string): Transporter {
  if (cached?.url !== url) {
    // A URL string, not an object: an object without auth fails with
    // `Missing credentials for "PLAIN"` (notes/stack.md).
    cached = { url, transport: createTransport(url) };
  }
  return cached.transport;
}

/**
 * Sends a message through EMAIL_SERVER. Throws when no server is configured or
 * the server refuses a recipient; callers decide what a missing server means
 * (the sign-in link falls back to the dev log, invitations report it).
 */
export async function sendMail(message: MailMessage): Promise<void> {
  const { server, from } = settings().mail;
  if (!server) throw new Error("EMAIL_SERVER is not set; cannot send mail.");
  const result = await transportFor(server).sendMail({ from, ...message });
  const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
  if (failed.length > 0) throw new Error(`The mail server refused ${failed.length} recipient(s).`);
}

/** Escapes text for an HTML mail body. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A minimal HTML mail: a paragraph of text, a button-styled link, a footnote. */
export function buttonMailHtml({ intro, buttonLabel, url, footnote }: { intro: string; buttonLabel: string; url: string; footnote: string }): string {
  const href = escapeHtml(url);
  return `<!doctype html>
<html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;padding:24px;color:#111">
<div style="max-width:480px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
<p style="margin:0 0 16px">${escapeHtml(intro)}</p>
<p style="margin:0 0 16px"><a href="${href}" style="display:inline-block;background:#111;color:#fff;text-decoration:none;padding:10px 16px;border-radius:6px">${escapeHtml(buttonLabel)}</a></p>
<p style="margin:0 0 8px;font-size:13px;color:#555">Or paste this link into your browser:<br><span style="word-break:break-all">${href}</span></p>
<p style="margin:0;font-size:13px;color:#555">${escapeHtml(footnote)}</p>
</div></body></html>`;
}

/**
 * Text chosen by someone else (a project name), made safe to quote in a
 * mail: formatting characters removed, and what a mail client would turn
 * into a link ("shop.example.com") broken with a look-alike dot, so the only
 * link in our mails is ours.
 */
export function inertMailText(text: string): string {
  return text
    .replace(/[\p{Cf}\p{Cc}]/gu, "")
    .replace(/([\p{L}\p{N}])[.](?=[\p{L}\p{N}])/gu, "$1\u2024")
    .replace(/:\/\//g, ":\u2215\u2215")
    .replace(/@/g, "\uFF20");
}
