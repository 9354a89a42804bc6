import { apiRoute, json, otherMethods } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/** Liveness: the process serves requests. Touches no database. */
export const GET = apiRoute(async () => json({ status: "ok" }));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
