import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { logger } from "@/lib/log";

/**
 * The dropped_item_counts table: envelope items Telltale accepts and does
 * not store (transactions, sessions, replays …), per project, UTC day and
 * type, for the project's settings page.
 */
export async function countDroppedItems(projectId: string, dropped: Record<string, number>, now = new Date()): Promise<void> {
  const rows = Object.entries(dropped).filter(([, n]) => n > 0);
  if (rows.length === 0) return;
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  try {
    await sqlDb()
      .insertInto("dropped_item_counts")
      .values(rows.map(([itemType, count]) => ({ project_id: projectId, day, item_type: itemType, count })))
      .onConflict((oc) => oc.columns(["project_id", "day", "item_type"]).doUpdateSet((eb) => ({ count: sql<number>`${eb.ref("dropped_item_counts.count")} + ${eb.ref("excluded.count")}` })))
      .execute();
  } catch (error) {
    // Counts of what was not stored: never a reason to fail the request.
    logger.warn("could not count dropped Sentry items", { projectId, error: error instanceof Error ? error.message.slice(0, 200) : String(error) });
  }
}

/** A project's dropped items per type over the last `days` UTC days, most first. */
export async function droppedItemTotals(projectId: string, days = 30, now = new Date()): Promise<{ itemType: string; count: number }[]> {
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const rows = await sqlDb()
    .selectFrom("dropped_item_counts")
    .select((eb) => ["item_type", eb.fn.sum<string>("count").as("total")])
    .where("project_id", "=", projectId)
    .where("day", ">=", since)
    .groupBy("item_type")
    .orderBy("total", "desc")
    .execute();
  return rows.map((r) => ({ itemType: r.item_type, count: Number(r.total) }));
}
