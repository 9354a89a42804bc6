import type { ProjectRole } from "@/lib/auth/roles";
import { buttonMailHtml, inertMailText, sendMail } from "@/lib/mail/send-mail";

/** The invitation mail: who invited you to what, the link, and when it expires. */
export async function sendInvitationEmail(invite: {
  to: string;
  projectName: string;
  role: ProjectRole;
  invitedBy: string;
  url: string;
  expiresAt: Date;
}): Promise<void> {
  // The project's name is someone else's text: quoted as plain, link-free text.
  const project = inertMailText(invite.projectName);
  const what = `${invite.invitedBy} invited you to join the project "${project}" on Telltale as ${invite.role === "owner" ? "an owner" : "a member"}.`;
  const expiry = `The link works once, for the address ${invite.to} only, until ${invite.expiresAt.toUTCString()}.`;
  await sendMail({
    to: invite.to,
    subject: `Join "${project}" on Telltale`,
    text: [what, "", "Accept the invitation:", invite.url, "", expiry, "If you did not expect it, ignore this message.", ""].join("\n"),
    html: buttonMailHtml({ intro: what, buttonLabel: "View invitation", url: invite.url, footnote: `${expiry} If you did not expect it, ignore this message.` }),
  });
}
