import { expressionBuilder } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Subquery: a pending invitation (not accepted, revoked or expired) to this
 * (normalized) address, for EXISTS. No import from lib/auth: the sign-up
 * policy there reads it.
 */
export function pendingInvitationTo(address: string) {
  const eb = expressionBuilder<DB, never>();
  return eb
    .selectFrom("invitations")
    .select(eb.lit(1).as("one"))
    .where("email", "=", address)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", eb.fn<Date>("now"));
}
