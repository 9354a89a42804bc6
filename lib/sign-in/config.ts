import NextAuth, { type NextAuthConfig } from "next-auth";
import Nodemailer from "next-auth/providers/nodemailer";
import { PrismaAdapter } from "@auth/prisma-adapter";
import { prisma } from "@/lib/db/client";
import { deriveKey } from "@/lib/config/secrets";
import { logger } from "@/lib/log";
import { settings } from "@/lib/config/settings";
import { deliverSignInLink } from "@/lib/sign-in/sign-in-email";
import { sendInBackground } from "@/lib/jobs/background";
import { checkSignInRequest } from "@/lib/sign-in/sign-in-request";
import { safeRedirectUrl } from "@/lib/auth/safe-callback";
import { SESSION_MAX_AGE_SECONDS, SESSION_UPDATE_AGE_SECONDS, SIGN_IN_LINK_LIFETIME_SECONDS } from "@/lib/auth/lifetimes";

/** Auth.js error types that mean the server, not the request, is at fault. */
const SERVER_FAULTS = new Set([
  "AdapterError",
  "EmailSignInError",
  "MissingAdapter",
  "MissingAdapterMethods",
  "MissingSecret",
  "InvalidEndpoints",
  "UnsupportedStrategy",
  "ErrorPageLoop",
  "EnvironmentError",
]);

/**
 * AUTH_SECRET when set; otherwise one derived from TELLTALE_SECRET, so an
 * operator manages a single secret. Undefined lets Auth.js report MissingSecret.
 */
export function authSecret(): string | undefined {
  const { auth, telltale } = settings().secrets;
  if (auth) return auth;
  if (!telltale) return undefined;
  return deriveKey("authjs-secret-v1").toString("base64url");
}

/** Built per request (lazy NextAuth config) so the environment is read when used, not at import. */
export function authConfig(): NextAuthConfig {
  return {
    secret: authSecret(),
    adapter: PrismaAdapter(prisma),
    // The same lifetime lib/auth/session.ts extends on use.
    session: { strategy: "database", maxAge: SESSION_MAX_AGE_SECONDS, updateAge: SESSION_UPDATE_AGE_SECONDS },
    pages: { signIn: "/signin", verifyRequest: "/signin/check-email", error: "/signin" },
    providers: [
      Nodemailer({
        // The provider insists on a server even though our sendVerificationRequest
        // picks the transport itself (lib/mail/send-mail.ts reads EMAIL_SERVER).
        server: settings().mail.server ?? "smtp://localhost:25",
        from: settings().mail.from,
        maxAge: SIGN_IN_LINK_LIFETIME_SECONDS,
        // Not awaited: the mail goes out after the answer, so an address
        // whose mail takes long to send answers as fast as one that gets
        // none, and an SMTP failure cannot become an unhandled rejection
        // inside Auth.js. A failure is logged, clearly (lib/sign-in/sign-in-email.ts).
        sendVerificationRequest({ identifier, url }) {
          sendInBackground(() => deliverSignInLink({ email: identifier, authCallbackUrl: url }));
          return Promise.resolve();
        },
      }),
    ],
    callbacks: {
      // Runs before a link is made (email.verificationRequest) and again when
      // it is used; only the first is rate limited. Known and unknown
      // addresses take the same path, so the answer is the same for both.
      async signIn({ user, email }) {
        if (email?.verificationRequest !== true) return true;
        return checkSignInRequest(user.email ?? "");
      },
      // callbackUrl / redirectTo: a path on this site only (lib/auth/safe-callback.ts).
      redirect({ url, baseUrl }) {
        return safeRedirectUrl(url, baseUrl);
      },
    },
    logger: {
      // Faults of the operator's setup or its mail server are errors; what a
      // client's request caused (no CSRF token, an unknown action, a used
      // link, a malformed callback) is a warning, as it is answered 4xx/302.
      error: (error) => {
        const type = (error as { type?: string }).type;
        const log = type && SERVER_FAULTS.has(type) ? logger.error : logger.warn;
        log("auth error", { name: error.name, type });
      },
      warn: (code) => logger.warn("auth warning", { code }),
      debug: () => {},
    },
  };
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => authConfig());
