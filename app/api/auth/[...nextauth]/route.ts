import { assertSameOrigin } from "@/lib/auth/same-origin";
import { handlers } from "@/lib/sign-in/config";
import { withSignInClientIp } from "@/lib/sign-in/sign-in-request";
import { errorToResponse } from "@/lib/edge/problem";
import { assertAcceptedCallbackUrl } from "@/lib/auth/safe-callback";
import { atPublicOrigin } from "@/lib/auth/public-origin";

type AuthRequest = Parameters<typeof handlers.GET>[0];

const EMAIL_CALLBACK = "/api/auth/callback/nodemailer";

/**
 * Opening the emailed link's raw Auth.js URL (an old mail, a scanner, a page
 * that embeds it) signs nobody in: it shows the confirmation page, whose
 * button POSTs. Without this, a link of the attacker's own account opened in
 * a victim's browser would sign the victim in as the attacker (login CSRF).
 */
export async function GET(request: Request): Promise<Response> {
  try {
    assertAcceptedCallbackUrl(request);
  } catch (error) {
    return errorToResponse(error, crypto.randomUUID());
  }
  const url = new URL(request.url);
  if (url.pathname === EMAIL_CALLBACK) return Response.redirect(new URL(`/signin/confirm?${url.searchParams}`, url), 303);
  return handlers.GET((await atPublicOrigin(request)) as AuthRequest);
}

/**
 * The confirmation page's POST must come from this site; the request's client
 * address feeds the sign-in limit. On both methods a callbackUrl Auth.js
 * cannot use is the client's 400 (Auth.js itself answers it with a 500).
 */
export async function POST(request: Request): Promise<Response> {
  try {
    assertAcceptedCallbackUrl(request);
    if (new URL(request.url).pathname === EMAIL_CALLBACK) assertSameOrigin(request, { requireBrowserProof: true });
  } catch (error) {
    return errorToResponse(error, crypto.randomUUID());
  }
  const atOrigin = await atPublicOrigin(request);
  return withSignInClientIp(atOrigin, () => handlers.POST(atOrigin as AuthRequest));
}
