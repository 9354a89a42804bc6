import { publicOrigin } from "@/lib/auth/public-origin";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { rotateKeyQuerySchema } from "@/lib/projects/schemas";
import { rotateKeyAsOwner } from "@/lib/projects/service";

/**
 * Rotates one of the project's keys (owners only); the old one stops working at once.
 * `?kind=secret` (default): {kind, apiKey}; `?kind=public`: {kind, publicKey, dsn}.
 */
export const POST = projectRoute({ role: "owner", query: rotateKeyQuerySchema }, async ({ access, query, request }) =>
  json(await rotateKeyAsOwner(access, query.kind, publicOrigin(request))),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
