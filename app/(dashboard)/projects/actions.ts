"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import type { CreateProjectState } from "@/components/create-project-form";
import type { RevealResult } from "@/components/use-revealed-key";
import { projectAction, sessionAction, type ActionState } from "@/lib/edge/action";
import { idSchema } from "@/lib/http/input";
import { acceptInvitationById } from "@/lib/invitations/service";
import { createProject } from "@/lib/project-setup/create-project";
import { createProjectBodySchema } from "@/lib/projects/schemas";
import { rotateKeyQuerySchema } from "@/lib/projects/schemas";
import { revealApiKey, rotateKeyAsOwner } from "@/lib/projects/service";
import { siteOrigin } from "@/app/(dashboard)/session";

/** Creates a project owned by the caller and hands its key to the form, once. */
export const createProjectAction = sessionAction(createProjectBodySchema, async ({ user, input }): Promise<CreateProjectState> => {
  const project = await createProject(user.id, input.name);
  revalidatePath("/projects");
  return { ok: true, project };
});

/** The plaintext key, only when a member presses Reveal or Copy (bound to `{ projectId }`). */
export const revealKeyAction = projectAction({ role: "member" }, async ({ access }): Promise<RevealResult> => {
  const apiKey = await revealApiKey(access);
  if (!apiKey) {
    return { ok: false, error: "This key can't be shown: it was stored under another TELLTALE_SECRET (or there is no active key). An owner can Rotate it to make a new one." };
  }
  return { ok: true, apiKey };
});

/**
 * Owner only: a new API key (`kind` secret, the default) or DSN key (`kind`
 * public); the old one stops working at once. The answer shows the new one.
 */
export const rotateKeyAction = projectAction({ role: "owner", input: rotateKeyQuerySchema }, async ({ access, input }): Promise<ActionState> => {
  const rotated = await rotateKeyAsOwner(access, input.kind, await siteOrigin());
  revalidatePath("/projects");
  revalidatePath(`/projects/${access.projectId}/settings`);
  return rotated.kind === "secret"
    ? { ok: true, message: "API key rotated: the old key no longer works. Update your applications with the new one:", shown: { label: `New API key for ${access.projectName}`, value: rotated.apiKey } }
    : { ok: true, message: "DSN key rotated: the old DSN no longer works. Update your SDKs with the new one:", shown: { label: `New DSN for ${access.projectName}`, value: rotated.dsn } };
});

/** Accepts one of the caller's pending invitations (listed on the Projects page) and opens the project. */
export const acceptInvitationByIdAction = sessionAction(z.object({ invitationId: idSchema }), async ({ user, input }): Promise<ActionState> => {
  const { projectId } = await acceptInvitationById(user, input.invitationId);
  revalidatePath("/projects");
  redirect(`/projects/${encodeURIComponent(projectId)}`);
});
