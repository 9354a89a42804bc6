import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { rotateKeyAsOwner } from "@/lib/projects/service";

/** Rotates the project's API key (owners only): {apiKey}; the old key stops working at once. */
export const POST = projectRoute({ role: "owner" }, async ({ access }) => json(await rotateKeyAsOwner(access)));

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
