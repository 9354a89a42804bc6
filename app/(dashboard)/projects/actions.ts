"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionState } from "@/components/action-state";
import type { CreateProjectState } from "@/components/create-project-form";
import type { RevealResult } from "@/components/use-revealed-key";
import { acceptInvitationById } from "@/lib/invitations/service";
import { createProject } from "@/lib/projects/create-project";
import { projectNameSchema } from "@/lib/projects/schemas";
import { getProjectForMember, rotateKeyAsOwner } from "@/lib/projects/service";
import { actionError, requireUser } from "../session";

/** Creates a project owned by the caller and hands its key to the form, once. */
export async function createProjectAction(_previous: CreateProjectState, formData: FormData): Promise<CreateProjectState> {
  const user = await requireUser();
  const name = projectNameSchema.safeParse(formData.get("name") ?? "");
  if (!name.success) return { ok: false, error: name.error.issues[0]!.message };
  try {
    const project = await createProject(user.id, name.data);
    revalidatePath("/projects");
    return { ok: true, project };
  } catch (error) {
    return actionError(error);
  }
}

/** The plaintext key, only when a member presses Reveal or Copy. */
export async function revealKeyAction(projectId: string): Promise<RevealResult> {
  const user = await requireUser();
  try {
    const project = await getProjectForMember(user.id, String(projectId));
    if (!project.apiKey) return { ok: false, error: "This key can't be shown: it was stored under another TELLTALE_SECRET (or there is no active key). An owner can Rotate it to make a new one." };
    return { ok: true, apiKey: project.apiKey };
  } catch (error) {
    const state = actionError(error);
    return { ok: false, error: state && !state.ok ? state.error : "Could not load the key." };
  }
}

/** Owner only: a new key; the old one stops working at once. */
export async function rotateKeyAction(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const user = await requireUser();
  try {
    await rotateKeyAsOwner(user.id, String(formData.get("projectId") ?? ""));
    revalidatePath("/projects");
    return { ok: true, message: "Key rotated. Update your applications with the new key." };
  } catch (error) {
    return actionError(error);
  }
}

/** Accepts one of the caller's pending invitations (listed on the Projects page) and opens the project. */
export async function acceptInvitationByIdAction(_previous: ActionState, formData: FormData): Promise<ActionState> {
  const user = await requireUser();
  let projectId: string;
  try {
    ({ projectId } = await acceptInvitationById(user, String(formData.get("invitationId") ?? "")));
  } catch (error) {
    return actionError(error);
  }
  revalidatePath("/projects");
  redirect(`/projects/${encodeURIComponent(projectId)}`);
}
