import { sqlDb } from "@/lib/db/sql";

/** A release of a project with its number in the order releases were first seen. */
export type ReleaseRef = { version: string; seq: number };

/** The project's newest release (the last first seen), or null when its events never named one. */
export async function newestRelease(projectId: string): Promise<ReleaseRef | null> {
  const row = await sqlDb()
    .selectFrom("releases")
    .select(["version", "seq"])
    .where("project_id", "=", projectId)
    .orderBy("seq", "desc")
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** One release of the project by its version, or null. */
export async function findRelease(projectId: string, version: string): Promise<ReleaseRef | null> {
  const row = await sqlDb().selectFrom("releases").select(["version", "seq"]).where("project_id", "=", projectId).where("version", "=", version).executeTakeFirst();
  return row ?? null;
}

/** The project's latest releases, newest first (the "resolve in release" choices). */
export async function recentReleases(projectId: string, limit = 20): Promise<ReleaseRef[]> {
  return sqlDb().selectFrom("releases").select(["version", "seq"]).where("project_id", "=", projectId).orderBy("seq", "desc").orderBy("version", "desc").limit(limit).execute();
}
