import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth-card";
import { SIGN_IN_LINK_LIFETIME_TEXT } from "@/lib/auth/lifetimes";
import { settings } from "@/lib/config/settings";

export const metadata: Metadata = { title: "Check your email" };
// Whether a mail server is set is read per request, not at build time.
export const dynamic = "force-dynamic";

/** Auth.js's "verify request" page: shown after a sign-in link was requested. */
export default function CheckEmailPage() {
  // Development without EMAIL_SERVER: no mail goes out; the link is printed by the server (lib/sign-in/sign-in-email.ts).
  const inServerLog = !settings().mail.server && !settings().production;
  return (
    <AuthCard title={inServerLog ? "Find the link in the server log" : "Check your email"}>
      <div className="space-y-3 text-sm text-zinc-600 dark:text-zinc-400">
        {inServerLog ? (
          <p>
            This is a development server without <code>EMAIL_SERVER</code>, so no mail was sent: the sign-in link is printed in the terminal running{" "}
            <code>npm run dev</code>, on a line starting <code>[telltale] DEV SIGN-IN LINK</code>. Open it and press <strong>Sign in</strong>.
          </p>
        ) : (
          <p>
            A sign-in link is on its way to your inbox. Open it and press <strong>Sign in</strong>.
          </p>
        )}
        <p>
          The link works once and expires in {SIGN_IN_LINK_LIFETIME_TEXT}.{inServerLog ? "" : " Nothing there? Check your spam folder."}
        </p>
        <p>
          <Link href="/signin" className="font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400">
            Use another address or send a new link
          </Link>
        </p>
      </div>
    </AuthCard>
  );
}
