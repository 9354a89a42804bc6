import { buttonMailHtml, deliverMail, MailNotConfiguredError, type MailMessage } from "@/lib/mail/send-mail";
import { plural } from "@/lib/text/plural";
import { clip, DIGEST_LISTED, headline, headlineNamesIssue, issueFacts, latestFacts, linkFree, pausedFacts, spikeFacts, type Notification } from "@/lib/alerts/messages";
import { clipAnswer, type AlertChannel } from "@/lib/alerts/channels/types";

/**
 * The mail: subject, plain text and HTML, with every quoted text made inert
 * (no links but ours). When the subject names the issue, the plain text
 * does not say it again: it starts with what the subject cannot hold, the
 * latest event's message as sent, its release and the newest frame in the
 * app's own code, then the issue's counts.
 */
export function alertMail(n: Notification, to: string): MailMessage {
  const line = headline(n, linkFree);
  const titleInSubject = headlineNamesIssue(n);
  const details: string[] = [];
  // A spike's subject holds its count too; the text says it plainly in place of the subject.
  if (titleInSubject && n.spike) details.push(`${plural(n.spike.observed, "event")} in ${n.spike.minutes} min.`);
  if (n.issue) details.push(...(titleInSubject ? [] : [linkFree(clip(n.issue.title))]), ...latestFacts(n.issue, linkFree), issueFacts(n.issue));
  if (n.spike) details.push(spikeFacts(n.spike));
  if (n.digest) {
    for (const item of n.digest.issues.slice(0, DIGEST_LISTED)) details.push(`- ${linkFree(clip(item.title))} (${item.level}, ${plural(item.count, "event")})`);
    if (n.digest.total > DIGEST_LISTED) details.push(`…and ${n.digest.total - DIGEST_LISTED} more.`);
  }
  if (n.paused) details.push(...pausedFacts(n.paused, linkFree));
  const footnote = n.paused
    ? "You get this mail as an owner of the project on Telltale."
    : "You get this mail because of an alert rule in the project's settings on Telltale; an owner can change or delete it there.";
  const button = n.paused ? "Open the settings" : n.issue ? "Open the issue" : "Open the project";
  return {
    to,
    subject: `[Telltale] ${line}`,
    text: [...(titleInSubject ? [] : [line, ""]), ...details, "", `Open in Telltale: ${n.url}`, "", footnote, ""].join("\n"),
    html: buttonMailHtml({ intro: [line, ...details].join(" — "), buttonLabel: button, url: n.url, footnote }),
  };
}

/** One mail to every recipient (team members, who see each other's addresses in the project anyway). */
export const emailChannel: AlertChannel<"email"> = {
  transport: "email",
  label: "email",
  async send(notification, { recipients }, { timeoutMs }) {
    if (recipients.length === 0) return { ok: false, retryable: false, answer: "no recipient is a member of the project any more" };
    try {
      const how = await deliverMail(alertMail(notification, recipients.join(", ")), { timeoutMs });
      if (how === "logged") return { ok: true, logged: true, answer: "logged (development): EMAIL_SERVER is not set, so the mail was printed to the server log" };
      return { ok: true, answer: `mail accepted for ${plural(recipients.length, "recipient")}` };
    } catch (error) {
      if (error instanceof MailNotConfiguredError) return { ok: false, retryable: false, answer: error.message };
      // The SMTP reply, not the error message: that could quote the server URL.
      const e = error as { responseCode?: number; response?: string; code?: string };
      if (e.responseCode) {
        // 5xx replies are permanent by SMTP's own rules; everything else may pass later.
        return { ok: false, retryable: e.responseCode < 500, answer: clipAnswer(`SMTP ${e.responseCode} ${e.response ?? ""}`.trim()) };
      }
      return { ok: false, retryable: true, unreachable: true, answer: clipAnswer(`mail not sent (${e.code ?? "error"})`) };
    }
  },
};
