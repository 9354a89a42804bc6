import type { Kysely } from "kysely";
import { settings } from "@/lib/config/settings";
import { sqlDb, type DB } from "@/lib/db/sql";
import { pendingInvitationTo } from "@/lib/invitations/queries";
import { anyUser, liveSignInTokenForOtherAddress, userWithEmail } from "@/lib/auth/users";

/**
 * Who may receive a sign-in link (SIGNUP): `invite` (the production
 * default): existing users and addresses with a pending invitation;
 * `domains`: those, and any address of SIGNUP_DOMAINS; `open` (the
 * development default): anyone. Whatever the policy, an instance with no
 * user yet lets its first address in, so a new installation can be set up;
 * while that address holds a live link, no other address gets one (on a
 * fresh instance open to the internet, a stranger must not race the
 * operator to become its first user).
 * The caller answers the same either way (lib/auth/sign-in-request.ts).
 */
export async function mayReceiveSignInLink(email: string, db: Kysely<DB> = sqlDb()): Promise<boolean> {
  const { policy, domains } = settings().signUp;
  if (policy === "open") return true;
  const address = email.trim().toLowerCase();
  if (policy === "domains" && domains.includes(address.slice(address.lastIndexOf("@") + 1))) return true;
  const row = await db
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(userWithEmail(address)),
          eb.exists(pendingInvitationTo(address)),
          eb.and([eb.not(eb.exists(anyUser())), eb.not(eb.exists(liveSignInTokenForOtherAddress(address)))]),
        ])
        .as("known"),
    )
    .executeTakeFirst();
  return row?.known === true;
}
