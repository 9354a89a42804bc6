import { checkDatabaseReady } from "@/lib/health";
import { apiRoute, json, otherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Readiness: 200 when the database answers, 503 problem otherwise. */
export const GET = apiRoute(async () => {
  await checkDatabaseReady();
  return json({ status: "ok" });
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
