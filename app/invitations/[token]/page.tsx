import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/components/auth-card";
import { buttonClass } from "@/components/button";
import { currentUser } from "@/lib/edge/caller";
import { signInPath } from "@/lib/auth/safe-callback";
import { invitationTokenSchema } from "@/lib/invitations/schemas";
import { getInvitationPreview, INVITATION_UNAVAILABLE } from "@/lib/invitations/service";
import { acceptInvitationAction, signOutForInvitationAction } from "./actions";

export const metadata: Metadata = { title: "Invitation" };

/** The page an invitation mail links to: project, role, and an Accept button. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await currentUser();
  const preview = invitationTokenSchema.safeParse(token).success ? await getInvitationPreview(token, user) : null;
  const here = `/invitations/${encodeURIComponent(token)}`;

  if (!preview) {
    return (
      <AuthCard title="Invitation not found">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Check the link in your mail, or ask an owner of the project for a new invitation.</p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={`Join “${preview.projectName}”`}>
      <p className="mb-5 text-sm text-zinc-600 dark:text-zinc-400">
        This invitation is for <strong className="break-all text-zinc-900 dark:text-zinc-100">{preview.email}</strong>, as{" "}
        {preview.role === "owner" ? "an owner" : "a member"} of this Telltale project. It works once, for that address only.
      </p>
      {preview.status !== "pending" ? (
        <div role="alert" className="space-y-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
          <p>{INVITATION_UNAVAILABLE[preview.status]}</p>
          {preview.status === "accepted" && (
            <p>
              If you accepted it, sign in with {preview.email} and open the project from{" "}
              <Link className="font-medium underline" href="/projects">
                your projects
              </Link>
              .
            </p>
          )}
        </div>
      ) : !user ? (
        <div className="space-y-2">
          <a className={buttonClass("primary", "md", "w-full")} href={signInPath(here, preview.email)}>
            Sign in with the invited address
          </a>
          <p className="text-xs text-zinc-500 dark:text-zinc-400">Then accept the invitation on this page.</p>
        </div>
      ) : preview.forThisUser ? (
        <form action={acceptInvitationAction.bind(null, token)}>
          <button type="submit" className={buttonClass("primary", "md", "w-full")}>
            Accept invitation
          </button>
        </form>
      ) : (
        <>
          <p className="mb-4 text-sm text-zinc-600 dark:text-zinc-400">
            This invitation was sent to a different address than the one you are signed in with ({user.email}).
          </p>
          <form action={signOutForInvitationAction.bind(null, token)}>
            <button
              type="submit"
              className="w-full rounded-md border border-zinc-300 bg-white px-3.5 py-2 text-sm font-medium text-zinc-800 shadow-sm hover:bg-zinc-100 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
            >
              Sign out and sign in with the invited address
            </button>
          </form>
        </>
      )}
    </AuthCard>
  );
}
