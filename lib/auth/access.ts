import { errors } from "@/lib/http/errors";
import { findAccessGrant } from "@/lib/auth/memberships";
import type { ProjectRole } from "@/lib/auth/roles";

export const PROJECT_NOT_FOUND = "No project with this id, or you are not a member of it.";

declare const accessBrand: unique symbol;

/**
 * Proof that `userId` is a member of `projectId` with `role`, resolved once
 * per request (one query) by `resolveProjectAccess` and passed to every lib
 * function that reads or changes the project. Only this module makes one.
 */
export type ProjectAccess = {
  readonly userId: string;
  readonly projectId: string;
  readonly projectName: string;
  readonly projectCreatedAt: Date;
  readonly role: ProjectRole;
  readonly [accessBrand]: true;
};

/**
 * The caller's access to a project. Outsiders get 404 (the answer never
 * reveals that a project exists); with `required: "owner"`, members get 403.
 */
export async function resolveProjectAccess(userId: string, projectId: string, required: ProjectRole = "member"): Promise<ProjectAccess> {
  const grant = await findAccessGrant(userId, projectId);
  if (!grant) throw errors.notFound(PROJECT_NOT_FOUND);
  const access = { userId, projectId, projectName: grant.projectName, projectCreatedAt: grant.projectCreatedAt, role: grant.role } as ProjectAccess;
  if (required === "owner") requireOwner(access);
  return access;
}

/** 403 unless the access is an owner's. */
export function requireOwner(access: ProjectAccess): void {
  if (access.role !== "owner") throw errors.forbidden("Only an owner of this project can do this.");
}
