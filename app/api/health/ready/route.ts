import { checkDatabaseReady } from "@/lib/health";
import { apiRoute, json } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Readiness: 200 when the database answers, 503 problem otherwise. */
export const GET = apiRoute(async () => {
  await checkDatabaseReady();
  return json({ status: "ok" });
});
