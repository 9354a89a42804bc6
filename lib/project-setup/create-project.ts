import { settings } from "@/lib/config/settings";
import { addMembership, countOwnedProjects } from "@/lib/auth/memberships";
import { transaction } from "@/lib/db/transaction";
import { lockUser } from "@/lib/auth/users";
import { errors } from "@/lib/http/errors";
import { createProjectKey } from "@/lib/keys/service";
import { createDefaultAlertRules } from "@/lib/alerts/rules";
import { insertProject } from "@/lib/projects/insert-project";
import { readProjectDsn } from "@/lib/projects/dsn";
import { findOwnedProjectByName } from "@/lib/projects/operator";

export type CreatedProject = { id: string; name: string; apiKey: string };

/**
 * Creates a project with its first API key and default alert rules (new
 * error issues and regressions, by email to the owner); `ownerId` becomes its owner. A
 * user owns at most MAX_PROJECTS_PER_USER projects (409 past that): the
 * count is taken again under the owner's row lock, so concurrent creations
 * by one person are counted one after another. A new project may not take
 * the name of one its owner already has (409), as the operator CLI says.
 */
export async function createProject(ownerId: string, name: string): Promise<CreatedProject> {
  const limit = settings().limits.projectsPerUser;
  // Without a transaction first: a person at the cap costs no transaction slot.
  assertBelowCap(await countOwnedProjects(ownerId), limit);
  return transaction("project creation", async (tx) => {
    await lockUser(tx, ownerId);
    assertBelowCap(await countOwnedProjects(ownerId, tx), limit);
    // Under the same lock, so two concurrent creations cannot both take the name.
    const sameName = await findOwnedProjectByName(ownerId, name, tx);
    if (sameName) throw errors.conflict(`You already own a project named "${sameName.name}". Give this one another name.`);
    const project = await insertProject(tx, name);
    await addMembership(tx, { projectId: project.id, userId: ownerId, role: "owner" });
    const apiKey = await createProjectKey(tx, project.id);
    await createDefaultAlertRules(tx, project.id, ownerId);
    return { ...project, apiKey };
  });
}

/** What `POST /api/projects` answers: the new project with its API key and its Sentry DSN on `origin`, as `GET /api/projects/:id` shows it. */
export async function createProjectWithDsn(ownerId: string, name: string, origin: string): Promise<CreatedProject & { dsn: string | null }> {
  const project = await createProject(ownerId, name);
  return { ...project, dsn: await readProjectDsn(project.id, origin) };
}

function assertBelowCap(owned: number, limit: number): void {
  if (owned >= limit) {
    throw errors.conflict(`You own ${owned} projects, the most one person may (MAX_PROJECTS_PER_USER=${limit}). Delete one you no longer use, or ask the operator.`);
  }
}

// The operator CLI and the benchmarks import it from here.
export { findOrCreateUserByEmail } from "@/lib/auth/users";
