import { describe, expect, it } from "vitest";
import { createInvitationBodySchema, invitationTokenSchema } from "@/lib/invitations/schemas";
import { sha256Hex as hashInvitationToken } from "@/lib/crypto/hash";
import { generateInvitationToken } from "@/lib/invitations/schemas";

describe("createInvitationBodySchema", () => {
  it("normalizes the address and defaults the role to member", () => {
    expect(createInvitationBodySchema.parse({ email: "  Ada@Example.COM " })).toEqual({ email: "ada@example.com", role: "member" });
    expect(createInvitationBodySchema.parse({ email: "a@b.io", role: "owner" }).role).toBe("owner");
  });

  it("refuses bad addresses, unknown roles and unknown fields", () => {
    const result = createInvitationBodySchema.safeParse({ email: "nope", role: "admin", x: 1 });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => (i.code === "unrecognized_keys" ? i.keys.join() : i.path.join(".")));
    expect(paths.sort()).toEqual(["email", "role", "x"]);
    expect(createInvitationBodySchema.safeParse({ email: `${"a".repeat(250)}@b.io` }).success).toBe(false);
    expect(createInvitationBodySchema.safeParse({ role: "member" }).success).toBe(false);
  });
});

describe("invitation tokens", () => {
  it("are 43 base64url characters, unique, stored as a SHA-256 hex digest", () => {
    const a = generateInvitationToken();
    const b = generateInvitationToken();
    expect(a).not.toBe(b);
    expect(invitationTokenSchema.safeParse(a).success).toBe(true);
    expect(hashInvitationToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashInvitationToken(a)).toBe(hashInvitationToken(a));
    expect(hashInvitationToken(a)).not.toBe(hashInvitationToken(b));
    for (const bad of ["", "short", `${a}x`, `${a.slice(0, 42)}+`]) expect(invitationTokenSchema.safeParse(bad).success).toBe(false);
  });
});
