import { headers } from "next/headers";
import { cache } from "react";
import { notFound, redirect } from "next/navigation";
import { currentUser, type SessionUser } from "@/lib/auth/caller";
import { publicOrigin } from "@/lib/auth/public-origin";
import { signInPath } from "@/lib/auth/safe-callback";
import { AppError } from "@/lib/http/errors";
import { getProjectMembership } from "@/lib/projects/service";
import type { ActionState } from "@/components/action-state";

// One session lookup per request, however many layouts, pages and metadata ask.
const sessionUser = cache(currentUser);

/** The signed-in user, or a redirect to the sign-in page (and back to `returnTo`). */
export async function requireUser(returnTo?: string): Promise<SessionUser> {
  const user = await sessionUser();
  if (!user) redirect(signInPath(returnTo));
  return user;
}

/** Awaits a lib call; a project the caller may not see renders the 404 page. */
export async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
}

/**
 * A lib failure (AppError: validation, forbidden, conflict...) as a message for
 * the form; anything else (redirects, bugs) propagates.
 */
export function actionError(error: unknown): ActionState {
  if (error instanceof AppError) {
    const detail = error.errors?.map((e) => e.message).join(" ");
    return { ok: false, error: detail || error.message };
  }
  throw error;
}

/** This site's origin as the browser sees it (curl snippets, invitation links): the API's rule. */
export async function siteOrigin(): Promise<string> {
  return publicOrigin(new Request("http://localhost/", { headers: await headers() }));
}

/**
 * The project as its member sees it, once per request however many layouts
 * and pages ask (404 page for outsiders).
 */
export const projectForMember = cache(async (userId: string, projectId: string) =>
  orNotFound(getProjectMembership(userId, projectId)),
);
