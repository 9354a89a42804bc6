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
import { allowedOriginsSchema, splitOriginsText } from "@/lib/projects/allowed-origins";
import { changeMemberRole, removeMember } from "@/lib/projects/members";
import { changeRoleBodySchema } from "@/lib/projects/schemas";
import { deleteProjectAsOwner, updateProject } from "@/lib/projects/service";

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

/** Owner: makes a member an owner, or an owner a member (a project keeps at least one owner). */
export const changeRoleAction = projectAction({ role: "owner", input: changeRoleBodySchema.extend({ userId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  const member = await changeMemberRole(access, input.userId, input.role);
  revalidatePath(settingsPath(access.projectId));
  return { ok: true, message: `${member.email} is now ${member.role === "owner" ? "an owner" : "a member"}.` };
});

// The text box: one origin per line (or separated by commas or spaces).
const originsField = z.object({ allowedOrigins: z.string().max(20_000, "That is too long for a list of origins.").transform(splitOriginsText).pipe(allowedOriginsSchema) });

/** Owner: the origins whose pages may send through the Sentry routes. */
export const updateAllowedOriginsAction = projectAction({ role: "owner", input: originsField }, async ({ access, input }): Promise<ActionState> => {
  const { allowedOrigins } = await updateProject(access, { allowedOrigins: input.allowedOrigins }, await siteOrigin());
  revalidatePath(settingsPath(access.projectId));
  const message =
    allowedOrigins[0] === "*"
      ? "Saved: pages on any origin may send events."
      : allowedOrigins.length === 0
        ? "Saved: no web page may send events now (servers and apps still can)."
        : `Saved: pages on ${allowedOrigins.join(", ")} may send events.`;
  return { ok: true, message };
});

/** Owner: deletes the project and all its events, after its name was typed. */
export const deleteProjectAction = projectAction({ role: "owner", input: z.object({ confirmation: z.string() }) }, async ({ access, input }): Promise<ActionState> => {
  await deleteProjectAsOwner(access, { confirmName: input.confirmation });
  revalidatePath("/projects");
  redirect("/projects");
});
