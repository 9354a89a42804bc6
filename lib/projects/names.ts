import { sqlDb } from "@/lib/db/sql";

/** The names of these projects by id (deleted ones are absent). */
export async function projectNames(ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sqlDb().selectFrom("projects").select(["id", "name"]).where("id", "in", ids).execute();
  return new Map(rows.map((p) => [p.id, p.name]));
}
