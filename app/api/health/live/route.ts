import { apiRoute, json } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Liveness: the process serves requests. Touches no database. */
export const GET = apiRoute(async () => json({ status: "ok" }));
