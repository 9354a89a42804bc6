import type { Kysely } from "kysely";
import { settings } from "@/lib/config/settings";
import { sqlDb, type DB } from "@/lib/db/sql";
import { pendingInvitationTo } from "@/lib/invitations/queries";
import { anyUser, liveSignInTokenForOtherAddress, userWithEmail } from "@/lib/auth/users";

// A local part of plain atext: no `%` or `!` (percent-hack and bang-path
// routing, which some relays still honour and send to another domain), no
// `/`, quotes or a second `@`, and dots only between characters.
const PLAIN_LOCAL_PART = /^[a-z0-9#$&'*+=?^_`{|}~-]+(?:\.[a-z0-9#$&'*+=?^_`{|}~-]+)*$/;

/** `address` is in one of SIGNUP_DOMAINS and its local part routes nowhere else. */
function inSignUpDomain(address: string, domains: string[]): boolean {
  const at = address.lastIndexOf("@");
  return domains.includes(address.slice(at + 1)) && PLAIN_LOCAL_PART.test(address.slice(0, at));
}

/**
 * Who may receive a sign-in link (SIGNUP): `invite` (the production
 * default): existing users and addresses with a pending invitation;
 * `domains`: those, and any address of SIGNUP_DOMAINS whose local part
 * has no routing characters; `open` (the
 * development default): anyone. Whatever the policy, an instance with no
 * user yet lets its first address in, so a new installation can be set up;
 * while that address holds a live link, no other address gets one (on a
 * fresh instance open to the internet, a stranger must not race the
 * operator to become its first user).
 * The caller answers the same either way (lib/sign-in/sign-in-request.ts).
 */
export async function mayReceiveSignInLink(email: string, db: Kysely<DB> = sqlDb()): Promise<boolean> {
  const { policy, domains } = settings().signUp;
  if (policy === "open") return true;
  const address = email.trim().toLowerCase();
  if (policy === "domains" && inSignUpDomain(address, domains)) return true;
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
