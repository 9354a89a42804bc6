"use server";

import { redirect } from "next/navigation";
import { currentUser } from "@/lib/edge/caller";
import { signOut } from "@/lib/sign-in/config";
import { signInPath } from "@/lib/auth/safe-callback";
import { AppError } from "@/lib/http/errors";
import { invitationTokenSchema } from "@/lib/invitations/schemas";
import { acceptInvitation, getInvitationPreview } from "@/lib/invitations/service";

/** Accepts the invitation and opens its project; on failure, back to the page, which shows why. */
export async function acceptInvitationAction(token: string): Promise<void> {
  const invitationPage = `/invitations/${encodeURIComponent(token)}`;
  const user = await currentUser();
  if (!user) redirect(signInPath(invitationPage));
  if (!invitationTokenSchema.safeParse(token).success) redirect(invitationPage);
  let projectId: string;
  try {
    ({ projectId } = await acceptInvitation(user, token));
  } catch (error) {
    if (error instanceof AppError) redirect(invitationPage);
    throw error;
  }
  redirect(`/projects/${encodeURIComponent(projectId)}`);
}

/** Signs out and comes back here, to sign in with the invited address (filled in on the sign-in form). */
export async function signOutForInvitationAction(token: string): Promise<void> {
  const invitationPage = `/invitations/${encodeURIComponent(token)}`;
  const preview = invitationTokenSchema.safeParse(token).success ? await getInvitationPreview(token, null) : null;
  await signOut({ redirectTo: signInPath(invitationPage, preview?.email) });
}
