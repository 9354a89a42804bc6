import { settings } from "@/lib/config/settings";
import { prisma, type Prisma } from "@/lib/db/client";

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
export async function mayReceiveSignInLink(email: string, db: Prisma.TransactionClient = prisma): Promise<boolean> {
  const { policy, domains } = settings().signUp;
  if (policy === "open") return true;
  const address = email.trim().toLowerCase();
  if (policy === "domains" && domains.includes(address.slice(address.lastIndexOf("@") + 1))) return true;
  const [row] = await db.$queryRaw<{ known: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM users WHERE email = ${address})
        OR EXISTS (SELECT 1 FROM invitations WHERE email = ${address} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now())
        OR (NOT EXISTS (SELECT 1 FROM users)
            AND NOT EXISTS (SELECT 1 FROM verification_tokens WHERE identifier <> ${address} AND expires > now())) AS known`;
  return row?.known === true;
}
