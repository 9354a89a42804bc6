import { apiRoute, json, otherMethods } from "@/lib/edge/route";
import { openApiDocument } from "@/lib/openapi/document";

/** GET /api/openapi.json: the OpenAPI 3.1 description of the API, generated from the routes' schemas (public). */
export const GET = apiRoute(async () => json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } }));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
