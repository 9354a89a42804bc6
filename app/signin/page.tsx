import type { Metadata } from "next";
import { AuthError } from "next-auth";
import { redirect } from "next/navigation";
import { z } from "zod";
import { AuthCard } from "@/components/auth-card";
import { SubmitButton } from "@/components/submit-button";
import { inputClass } from "@/components/text-field";
import { currentUser } from "@/lib/edge/caller";
import { signIn } from "@/lib/sign-in/config";
import { safeCallbackPath } from "@/lib/auth/safe-callback";
import { formObject } from "@/lib/http/input";
import { plural } from "@/lib/text/plural";

export const metadata: Metadata = { title: "Sign in" };

type SearchParams = Record<string, string | string[] | undefined>;

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function errorMessage(code: string, retryAfter: string | undefined): string {
  switch (code) {
    case "RateLimited": {
      const minutes = Math.max(1, Math.ceil(Number(retryAfter ?? 60) / 60));
      return `Too many sign-in emails were requested. Try again in ${plural(minutes, "minute")}.`;
    }
    case "Verification":
      return "That sign-in link has expired or was already used. Request a new one below.";
    case "InvalidEmail":
      return "Enter a valid email address.";
    case "EmailSignin":
    case "EmailSignInError":
      return "The sign-in email could not be sent. Try again in a moment.";
    case "Configuration":
      return "Sign-in is not configured correctly on this server. Ask its administrator to check the server log.";
    case "AccessDenied":
      return "This address may not sign in here.";
    case "SessionRequired":
      return "Sign in to see that page.";
    default:
      return "Sign-in failed. Try again.";
  }
}

const sendLinkInput = z.object({
  email: z.string().trim().pipe(z.email()).catch(""),
  callbackUrl: z.string().optional().transform((value) => safeCallbackPath(value)),
});

/**
 * Where Auth.js sends the browser after a link request, as a path on this
 * site: its own verify-request URL (an extra redirect through /api/auth that
 * would stay in the address bar) becomes our page directly.
 */
function nextPage(authUrl: string): string {
  const url = new URL(authUrl, "http://localhost");
  if (url.pathname.endsWith("/verify-request")) return "/signin/check-email";
  return safeCallbackPath(url.pathname + url.search);
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(single(params.callbackUrl));
  const error = single(params.error);
  // An invitation's link fills in the invited address (anything else is left out).
  const email = z.email().max(254).safeParse(single(params.email)?.trim()).data ?? "";

  if (!error && (await currentUser())) redirect(callbackUrl);

  async function sendLink(formData: FormData) {
    "use server";
    const { email, callbackUrl: target } = sendLinkInput.parse(formObject(formData));
    if (!email) redirect(`/signin?${new URLSearchParams({ error: "InvalidEmail", callbackUrl: target })}`);
    let next: string;
    try {
      next = await signIn("nodemailer", { email, redirectTo: target, redirect: false });
    } catch (cause) {
      if (cause instanceof AuthError) redirect(`/signin?${new URLSearchParams({ error: cause.type, callbackUrl: target })}`);
      throw cause;
    }
    redirect(nextPage(next));
  }

  return (
    <AuthCard title="Sign in">
      <p className="mb-5 text-sm text-zinc-600 dark:text-zinc-400">
        Enter your email address and we will send you a link to sign in. No password needed.
      </p>
      {error && (
        <p role="alert" className="mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/50 dark:text-red-300">
          {errorMessage(error, single(params.retryAfter))}
        </p>
      )}
      <form action={sendLink} className="space-y-4">
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        <div className="flex flex-col gap-1.5">
          <label htmlFor="email" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
            Email address
          </label>
          <input
            id="email"
            name="email"
            type="email"
            required
            autoComplete="email"
            inputMode="email"
            autoFocus
            defaultValue={email}
            placeholder="you@example.com"
            className={inputClass}
          />
        </div>
        <SubmitButton className="w-full" pendingLabel="Sending…">
          Email me a sign-in link
        </SubmitButton>
      </form>
    </AuthCard>
  );
}
