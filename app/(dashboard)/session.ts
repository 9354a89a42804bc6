import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { currentUser, type SessionUser } from "@/lib/edge/caller";
import { publicOrigin } from "@/lib/auth/public-origin";
import { signInPath } from "@/lib/auth/safe-callback";
import { AppError } from "@/lib/http/errors";
import { resolveProjectAccess, type ProjectAccess } from "@/lib/auth/access";

// One session lookup per request, however many layouts, pages and metadata ask.
const sessionUser = cache(currentUser);

/** The signed-in user, or a redirect to the sign-in page (and back to `returnTo`). */
export async function requireUser(returnTo?: string): Promise<SessionUser> {
  const user = await sessionUser();
  if (!user) redirect(signInPath(returnTo));
  return user;
}

/**
 * The caller's access to a project, resolved once per request however many
 * layouts, pages and metadata ask (one query); a project they are not in
 * renders the 404 page.
 */
export const projectAccess = cache(async (projectId: string): Promise<ProjectAccess> => {
  const user = await requireUser(`/projects/${encodeURIComponent(projectId)}`);
  try {
    return await resolveProjectAccess(user.id, projectId);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
});

/** This site's origin as the browser sees it (curl snippets, invitation links): the API's rule. */
export async function siteOrigin(): Promise<string> {
  return publicOrigin(new Request("http://localhost/", { headers: await headers() }));
}
