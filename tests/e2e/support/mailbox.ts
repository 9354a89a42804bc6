/** Reads what the mail sink (mail-sink.ts) filed: the tests' inbox. */
import fs from "node:fs";
import path from "node:path";
import type { StoredMail } from "./mail-sink";

function mailDir(): string {
  const dir = process.env.E2E_MAIL_DIR;
  if (!dir) throw new Error("E2E_MAIL_DIR is not set: run the e2e tests through playwright.config.ts (its global setup starts the mail sink).");
  return dir;
}

/** Undoes quoted-printable (soft line breaks, =XX bytes), which nodemailer uses for long lines. */
export function decodeQuotedPrintable(text: string): string {
  const bytes = text.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** The messages sent to `to` so far, oldest first. */
export function mailsTo(to: string): StoredMail[] {
  const dir = mailDir();
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as StoredMail)
    .filter((mail) => mail.to.includes(to.toLowerCase()));
}

function linkPattern(pathPrefix: string): RegExp {
  return new RegExp(`https?://[^\\s"'<>]+${pathPrefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[^\\s"'<>]*`);
}

/** The links to `pathPrefix` in the messages to `to`, oldest first. */
export function linksTo(to: string, pathPrefix: string): string[] {
  const pattern = linkPattern(pathPrefix);
  return mailsTo(to)
    .map((mail) => pattern.exec(decodeQuotedPrintable(mail.raw))?.[0]?.replace(/&amp;/g, "&"))
    .filter((link): link is string => Boolean(link));
}

/**
 * Waits for the `index`-th link (0-based) to `pathPrefix` on the site in the
 * messages to `to`, and returns it.
 */
export async function waitForLink(to: string, pathPrefix: string, { index = 0, timeoutMs = 15_000 } = {}): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const links = linksTo(to, pathPrefix);
    if (links[index]) return links[index];
    if (Date.now() > deadline) throw new Error(`No mail to ${to} with a link to ${pathPrefix} (have ${links.length}).`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
