import { createHash, randomBytes } from "node:crypto";

/** A new invitation token: 32 random bytes, base64url. Only its hash is stored. */
export function generateInvitationToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Hex SHA-256: the `invitations.token_hash` lookup column. */
export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
