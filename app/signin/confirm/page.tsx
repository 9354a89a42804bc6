import type { Metadata } from "next";
import { AuthCard } from "@/components/auth-card";
import { buttonClass } from "@/components/button";
import { SIGN_IN_LINK_LIFETIME_TEXT } from "@/lib/auth/lifetimes";
import { authCallbackAction } from "@/lib/sign-in/sign-in-email";

export const metadata: Metadata = { title: "Confirm sign-in" };

type SearchParams = Record<string, string | string[] | undefined>;

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * Where the emailed link points. Opening it changes nothing (mail scanners
 * open links); only the button's POST reaches Auth.js and uses the token.
 */
export default async function ConfirmSignInPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const token = single(params.token);
  const email = single(params.email);
  const callbackUrl = single(params.callbackUrl);

  return (
    <AuthCard title="Sign in to Telltale">
      {token && email ? (
        <>
          <p className="mb-5 text-sm text-zinc-600 dark:text-zinc-400">
            Continue as <strong className="break-all text-zinc-900 dark:text-zinc-100">{email}</strong>?
          </p>
          <form method="post" action={authCallbackAction({ token, email, callbackUrl })}>
            <button type="submit" className={buttonClass("primary", "md", "w-full")}>
              Sign in
            </button>
          </form>
          <p className="mt-4 text-xs text-zinc-500 dark:text-zinc-400">The link works once and expires {SIGN_IN_LINK_LIFETIME_TEXT} after it was sent.</p>
        </>
      ) : (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          This sign-in link is incomplete.{" "}
          <a className="font-medium text-indigo-600 underline-offset-2 hover:underline dark:text-indigo-400" href="/signin">
            Request a new link
          </a>
          .
        </p>
      )}
    </AuthCard>
  );
}
