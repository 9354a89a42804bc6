import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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
  // The clock stands still (Date only: timers, and so the database's
  // deadlines, run as usual), so expiries are compared exactly.
  const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a session in use is pushed to 30 days from now once its last extension is a day old", async () => {
    // Signed in 20 days ago: 10 days left.
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: new Date(NOW + 10 * DAY) });
    await requireSessionUser(apiRequest("/api/projects", { cookie }));
    expect(await expiresOf(sessionToken)).toBe(NOW + MAX_AGE);
  });

  it("is not written again within the day: the expiry stays as it was", async () => {
    // Extended 12 hours ago.
    const initial = new Date(NOW + MAX_AGE - DAY / 2);
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: initial });
    for (let i = 0; i < 3; i++) await requireSessionUser(apiRequest("/api/projects", { cookie }));
    expect(await expiresOf(sessionToken)).toBe(initial.getTime());
  });

  it("never revives an expired session", async () => {
    const expired = NOW - 1000;
    const { cookie, sessionToken } = await createUserWithSession(undefined, { expires: new Date(expired) });
    await expect(requireSessionUser(apiRequest("/api/projects", { cookie }))).rejects.toMatchObject({ code: "unauthenticated" });
    expect(await expiresOf(sessionToken)).toBe(expired);
  });
});
