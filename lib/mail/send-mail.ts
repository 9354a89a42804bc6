import net from "node:net";
import { createTransport } from "nodemailer";
import SMTPTransport from "nodemailer/lib/smtp-transport";
import { settings } from "@/lib/config/settings";

/** One outgoing message; every mail we send has a plain-text and an HTML part. */
export type MailMessage = { to: string; subject: string; text: string; html: string };

/** A send's deadline unless the caller gives one (sign-in links, invitations). */
const DEFAULT_MAIL_TIMEOUT_MS = 20_000;

/**
 * Sends a message through EMAIL_SERVER within `timeoutMs`, from connecting
 * to the server's last answer: nodemailer's connection, greeting and socket
 * timeouts bound each wait, and the socket is ours (getSocket), so at the
 * deadline it is closed and the send fails, whatever stage it was in. (A
 * caller that retries after its own lease, like the alert queue, thus never
 * sends a second copy while the first is still talking to a slow server.)
 * Throws when no server is configured, the server refuses a recipient, or
 * the deadline passes.
 */
export async function sendMail(message: MailMessage, { timeoutMs = DEFAULT_MAIL_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<void> {
  const { server, from } = settings().mail;
  if (!server) throw new Error("EMAIL_SERVER is not set; cannot send mail.");
  let socket: net.Socket | undefined;
  let expired = false;
  // The URL as the operator wrote it (credentials and query options
  // included); the transport parses it, our timeouts are the defaults.
  const transport = createTransport(
    new SMTPTransport({
      url: server,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      getSocket(options, callback) {
        // nodemailer's own defaults (465 for smtps://, else 587); it does the TLS itself.
        socket = net.connect({ host: options.host ?? "localhost", port: Number(options.port) || (options.secure ? 465 : 587) });
        if (expired) socket.destroy();
        callback(null, { connection: socket });
      },
    }),
  );
  const timer = setTimeout(() => {
    expired = true;
    socket?.destroy();
  }, timeoutMs);
  try {
    const result = await transport.sendMail({ from, ...message });
    const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
    if (failed.length > 0) throw new Error(`The mail server refused ${failed.length} recipient(s).`);
  } catch (error) {
    // Our deadline closed the socket: say so, not "socket closed".
    if (expired) throw Object.assign(new Error(`The mail server did not finish within ${timeoutMs} ms.`), { code: "ETIMEDOUT" });
    throw error;
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

/** Production without EMAIL_SERVER: mail cannot go anywhere. */
export class MailNotConfiguredError extends Error {
  constructor() {
    super("EMAIL_SERVER is not set: no mail can be sent");
    this.name = "MailNotConfiguredError";
  }
}

/**
 * Sends a message, or, in development with no EMAIL_SERVER, prints it to
 * the server log (as sign-in links are) and answers "logged": a fresh
 * install's alerts then show up in the terminal instead of failing.
 */
export async function deliverMail(message: MailMessage, options: { timeoutMs?: number } = {}): Promise<"sent" | "logged"> {
  if (!settings().mail.server) {
    if (settings().production) throw new MailNotConfiguredError();
    if (!settings().log.silent) {
      console.info(`[telltale] DEV MAIL (EMAIL_SERVER unset; development only) to ${message.to}: ${message.subject}\n${message.text}`);
    }
    return "logged";
  }
  await sendMail(message, options);
  return "sent";
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
