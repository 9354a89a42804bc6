import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { requireSessionUser } from "@/lib/auth/session";
import { SESSION_MAX_AGE_SECONDS } from "@/lib/auth/lifetimes";
import { apiRequest, createUserWithSession } from "@/tests/helpers/session";

const DAY = 86_400_000;
const MAX_AGE = SESSION_MAX_AGE_SECONDS * 1000;

async function expiresOf(sessionToken: string): Promise<number> {
  return (await prisma.session.findUniqueOrThrow({ where: { sessionToken } })).expires.getTime();
}

describe("database session lifetime (Auth.js maxAge 30 days, updateAge 24 hours)", () => {
  it("a session in use is pushed to 30 days from now once its last extension is a day old", async () => {
    // Signed in 20 days ago: 10 days left.
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: new Date(Date.now() + 10 * DAY) });
    const before = Date.now();
    await requireSessionUser(apiRequest("/api/projects", { cookie }));
    const expires = await expiresOf(sessionToken);
    expect(expires).toBeGreaterThanOrEqual(before + MAX_AGE);
    expect(expires).toBeLessThanOrEqual(Date.now() + MAX_AGE);
  });

  it("is not written again within the day: the expiry stays as it was", async () => {
    // Extended 12 hours ago.
    const initial = new Date(Date.now() + MAX_AGE - DAY / 2);
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: initial });
    for (let i = 0; i < 3; i++) await requireSessionUser(apiRequest("/api/projects", { cookie }));
    expect(await expiresOf(sessionToken)).toBe(initial.getTime());
  });

  it("never revives an expired session", async () => {
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: new Date(Date.now() - 1000) });
    await expect(requireSessionUser(apiRequest("/api/projects", { cookie }))).rejects.toMatchObject({ code: "unauthenticated" });
    expect(await expiresOf(sessionToken)).toBeLessThan(Date.now());
  });
});
