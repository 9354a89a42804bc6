/**
 * The one place that resolves who is calling: an API key (ingestion) or a
 * signed-in person (dashboard, management API, AI summary). The route and
 * action wrappers (lib/edge/route.ts, lib/edge/action.ts) call these.
 */
import { clientAddress } from "@/lib/http/client-address";
import { errors } from "@/lib/http/errors";
import { authenticateApiKey, type AuthenticatedKey } from "@/lib/keys/service";

export type { AuthenticatedKey };

/** `Authorization: Bearer <key>` -> the key's project, or 401. */
export async function requireApiKey(request: Request): Promise<AuthenticatedKey> {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw errors.missingApiKey();
  return authenticateApiKey(match[1]!, clientAddress(request.headers));
}

export { requireSessionUser, currentUser, type SessionUser } from "@/lib/auth/session";
