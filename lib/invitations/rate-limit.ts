import { normalizeEmailKey } from "@/lib/auth/sign-in-rate-limit";
import { fromSettings } from "@/lib/config/settings";
import { errors } from "@/lib/http/errors";
import { consumeRateLimit, createRateLimit } from "@/lib/http/rate-limit";

// Invitations are mail the operator's server sends on a user's word: each
// owner may send so many an hour, and each address receive so many a day,
// whoever sends them (plus-tagged addresses count as one).
const limits = fromSettings((s) => ({
  inviter: createRateLimit({ name: "invitations-inviter", perWindow: s.limits.invitationsPerInviterPerHour, windowSeconds: 3600 }),
  address: createRateLimit({ name: "invitations-address", perWindow: s.limits.invitationsPerAddressPerDay, windowSeconds: 86_400 }),
}));

/** Takes one invitation from both budgets, or throws 429 rate_limited. */
export async function consumeInvitationQuota(inviterId: string, email: string): Promise<void> {
  const { inviter, address } = limits();
  const decisions = await Promise.all([consumeRateLimit(inviter, inviterId), consumeRateLimit(address, normalizeEmailKey(email))]);
  const refused = decisions.find((d) => d && !d.allowed);
  if (refused) throw errors.rateLimited(refused);
}
