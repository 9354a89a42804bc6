"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionState } from "@/components/action-state";
import type { InviteState } from "@/components/invite-form";
import { createInvitationBodySchema } from "@/lib/invitations/schemas";
import { createInvitation, revokeInvitation } from "@/lib/invitations/service";
import { removeMember } from "@/lib/projects/members";
import { deleteProjectAsOwner } from "@/lib/projects/service";
import { actionError, requireUser, siteOrigin } from "../../../session";

const field = (formData: FormData, name: string) => String(formData.get(name) ?? "");

/** Owner: invites an address; the answer carries the link in case the mail does not arrive. */
export async function inviteAction(_previous: InviteState, formData: FormData): Promise<InviteState> {
  const user = await requireUser();
  const projectId = field(formData, "projectId");
  const input = createInvitationBodySchema.safeParse({ email: field(formData, "email"), role: field(formData, "role") || "member" });
  if (!input.success) return { ok: false, error: input.error.issues.map((i) => i.message).join(" ") };
  try {
    const invitation = await createInvitation(user.id, projectId, input.data, { baseUrl: await siteOrigin() });
    revalidatePath(`/projects/${projectId}/settings`);
    return { ok: true, email: invitation.email, inviteUrl: invitation.inviteUrl, emailSent: invitation.emailSent };
  } catch (error) {
    return actionError(error);
  }
}

export async function revokeInvitationAction(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const user = await requireUser();
  const projectId = field(formData, "projectId");
  try {
    await revokeInvitation(user.id, projectId, field(formData, "invitationId"));
    revalidatePath(`/projects/${projectId}/settings`);
    return { ok: true };
  } catch (error) {
    return actionError(error);
  }
}

/** Owner removes a member, or anyone removes themself (leave). */
export async function removeMemberAction(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const user = await requireUser();
  const projectId = field(formData, "projectId");
  const memberId = field(formData, "userId");
  try {
    await removeMember(user.id, projectId, memberId);
  } catch (error) {
    return actionError(error);
  }
  if (memberId === user.id) {
    revalidatePath("/projects");
    redirect("/projects");
  }
  revalidatePath(`/projects/${projectId}/settings`);
  return { ok: true };
}

/** Owner: deletes the project and all its events, after the name was typed. */
export async function deleteProjectAction(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const user = await requireUser();
  const projectId = field(formData, "projectId");
  try {
    await deleteProjectAsOwner(user.id, projectId, { confirmName: field(formData, "confirmation") });
  } catch (error) {
    return actionError(error);
  }
  revalidatePath("/projects");
  redirect("/projects");
}
