import { SIGN_IN_LINK_LIFETIME_TEXT } from "@/lib/auth/lifetimes";
import { settings } from "@/lib/config/settings";
import { logger } from "@/lib/log";
import { buttonMailHtml, sendMail } from "@/lib/mail/send-mail";


/**
 * Auth.js's callback URL (`/api/auth/callback/nodemailer?callbackUrl&token&email`)
 * rewritten to our confirmation page with the same parameters. Opening it
 * (as mail scanners do) consumes nothing; only its button POSTs to Auth.js.
 */
export function confirmationUrl(authCallbackUrl: string): string {
  const callback = new URL(authCallbackUrl);
  return `${callback.origin}/signin/confirm?${callback.searchParams.toString()}`;
}

/**
 * The form action of the confirmation page: Auth.js's email callback on this
 * origin with the link's own parameters. Relative, so it can't point elsewhere.
 */
export function authCallbackAction(params: { token: string; email: string; callbackUrl?: string }): string {
  const search = new URLSearchParams();
  if (params.callbackUrl) search.set("callbackUrl", params.callbackUrl);
  search.set("token", params.token);
  search.set("email", params.email);
  return `/api/auth/callback/nodemailer?${search.toString()}`;
}

/**
 * Delivers a sign-in link: by mail through EMAIL_SERVER, or, in development
 * with no mail server, as one clearly marked line in the server log (the only
 * place a link is ever logged). Production without EMAIL_SERVER fails.
 */
export async function deliverSignInLink({ email, authCallbackUrl }: { email: string; authCallbackUrl: string }): Promise<void> {
  try {
    await sendSignInLink(email, confirmationUrl(authCallbackUrl));
  } catch (error) {
    // The person sees "check your email" either way; the operator must see why nothing came.
    logger.error("sign-in email not sent: the mail server refused it or could not be reached. Check EMAIL_SERVER.", {
      reason: error instanceof Error ? error.message.slice(0, 200) : String(error),
    });
  }
}

async function sendSignInLink(email: string, url: string): Promise<void> {
  if (!settings().mail.server) {
    if (settings().production) {
      throw new Error("EMAIL_SERVER is not set: sign-in links cannot be sent. Set EMAIL_SERVER to an SMTP URL.");
    }
    console.info(`[telltale] DEV SIGN-IN LINK (EMAIL_SERVER unset; development only) for ${email}: ${url}`);
    return;
  }
  const host = new URL(url).host;
  await sendMail({
    to: email,
    subject: `Sign in to Telltale (${host})`,
    text: [
      `Sign in to Telltale at ${host} with this link:`,
      "",
      url,
      "",
      `The link works once and expires in ${SIGN_IN_LINK_LIFETIME_TEXT}.`,
      "If you did not ask for it, ignore this message.",
      "",
    ].join("\n"),
    html: buttonMailHtml({
      intro: `Sign in to Telltale at ${host}.`,
      buttonLabel: "Sign in",
      url,
      footnote: `The link works once and expires in ${SIGN_IN_LINK_LIFETIME_TEXT}. If you did not ask for it, ignore this message.`,
    }),
  });
}
