import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth-card";
import { SIGN_IN_LINK_LIFETIME_TEXT } from "@/lib/auth/lifetimes";

export const metadata: Metadata = { title: "Check your email" };

/** Auth.js's "verify request" page: shown after a sign-in link was requested. */
export default function CheckEmailPage() {
  return (
    <AuthCard title="Check your email">
      <div className="space-y-3 text-sm text-zinc-600 dark:text-zinc-400">
        <p>
          A sign-in link is on its way to your inbox. Open it and press <strong>Sign in</strong>.
        </p>
        <p>The link works once and expires in {SIGN_IN_LINK_LIFETIME_TEXT}. Nothing there? Check your spam folder.</p>
        <p>
          <Link href="/signin" className="font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400">
            Use another address or send a new link
          </Link>
        </p>
      </div>
    </AuthCard>
  );
}
