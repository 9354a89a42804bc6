import { prisma } from "@/lib/db/client";
import { createProjectKey } from "@/lib/keys/service";

export type CreatedProject = { id: string; name: string; apiKey: string };

/** Creates a project with its first API key; `ownerId` becomes its owner. */
export async function createProject(ownerId: string, name: string): Promise<CreatedProject> {
  return prisma.$transaction(async (tx) => {
    const project = await tx.project.create({
      data: { name, memberships: { create: { userId: ownerId, role: "owner" } } },
      select: { id: true, name: true },
    });
    const apiKey = await createProjectKey(tx, project.id);
    return { ...project, apiKey };
  });
}

/** Finds or creates a user by email (operator CLI; invitations). */
export async function findOrCreateUserByEmail(email: string): Promise<{ id: string; email: string }> {
  const normalized = email.trim().toLowerCase();
  return prisma.user.upsert({
    where: { email: normalized },
    update: {},
    create: { email: normalized },
    select: { id: true, email: true },
  });
}
