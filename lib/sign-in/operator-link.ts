import { randomBytes } from "node:crypto";
import { authSecret } from "@/lib/sign-in/config";
import { SIGN_IN_LINK_LIFETIME_SECONDS } from "@/lib/auth/lifetimes";
import { configuredOrigin } from "@/lib/auth/public-origin";
import { confirmationUrl, authCallbackAction } from "@/lib/sign-in/sign-in-email";
import { sha256Hex } from "@/lib/crypto/hash";
import { findUserIdByEmail, storeSignInToken } from "@/lib/auth/users";

export class UnknownUserError extends Error {}

/**
 * A one-time sign-in link for an existing user, made as Auth.js's email
 * provider makes one (the token stored as SHA-256 of token + secret, 15
 * minutes), for an operator whose mail server does not work yet. The link
 * opens the confirmation page, like an emailed one.
 */
export async function createOperatorSignInLink(email: string, now = new Date()): Promise<{ url: string; expires: Date }> {
  const address = email.trim().toLowerCase();
  if (!(await findUserIdByEmail(address))) throw new UnknownUserError(`No user has the address ${address}. Create one first: npm run telltale -- project create --name <name> --owner ${address}`);
  const secret = authSecret();
  if (!secret) throw new Error("Set AUTH_SECRET (or TELLTALE_SECRET) first: sign-in links are signed with it.");
  const token = randomBytes(32).toString("hex");
  const expires = new Date(now.getTime() + SIGN_IN_LINK_LIFETIME_SECONDS * 1000);
  await storeSignInToken(address, sha256Hex(`${token}${secret}`), expires);
  const origin = configuredOrigin();
  const callbackAction = authCallbackAction({ token, email: address, callbackUrl: `${origin}/projects` });
  return { url: confirmationUrl(`${origin}${callbackAction}`), expires };
}
