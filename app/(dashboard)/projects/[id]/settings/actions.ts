"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import type { InviteState } from "@/components/invite-form";
import { siteOrigin } from "@/app/(dashboard)/session";
import { projectAction, type ActionState } from "@/lib/edge/action";
import { idSchema } from "@/lib/http/input";
import { createInvitationBodySchema } from "@/lib/invitations/schemas";
import { createInvitation, revokeInvitation } from "@/lib/invitations/service";
import { removeMember } from "@/lib/projects/members";
import { deleteProjectAsOwner } from "@/lib/projects/service";

const settingsPath = (projectId: string) => `/projects/${projectId}/settings`;

/** Owner: invites an address; the answer carries the link in case the mail does not arrive. */
export const inviteAction = projectAction({ role: "owner", input: createInvitationBodySchema }, async ({ access, input }): Promise<InviteState> => {
  const invitation = await createInvitation(access, input, { baseUrl: await siteOrigin() });
  revalidatePath(settingsPath(access.projectId));
  return { ok: true, email: invitation.email, inviteUrl: invitation.inviteUrl, emailSent: invitation.emailSent };
});

export const revokeInvitationAction = projectAction({ role: "owner", input: z.object({ invitationId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  await revokeInvitation(access, input.invitationId);
  revalidatePath(settingsPath(access.projectId));
  return { ok: true };
});

/** Owner removes a member, or anyone removes themself (leave). */
export const removeMemberAction = projectAction({ role: "member", input: z.object({ userId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  await removeMember(access, input.userId);
  if (input.userId === access.userId) {
    revalidatePath("/projects");
    redirect("/projects");
  }
  revalidatePath(settingsPath(access.projectId));
  return { ok: true };
});

/** Owner: deletes the project and all its events, after its name was typed. */
export const deleteProjectAction = projectAction({ role: "owner", input: z.object({ confirmation: z.string() }) }, async ({ access, input }): Promise<ActionState> => {
  await deleteProjectAsOwner(access, { confirmName: input.confirmation });
  revalidatePath("/projects");
  redirect("/projects");
});
