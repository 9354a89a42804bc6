import { afterEach, describe, expect, inject, it, vi } from "vitest";
import * as projectsRoute from "@/app/api/projects/route";
import pg from "pg";
import { prisma } from "@/lib/db/client";
import { transactionQueue } from "@/lib/db/transaction";
import { logger } from "@/lib/log";
import { createProject } from "@/lib/project-setup/create-project";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { apiRequest, callRoute, createUserWithSession } from "@/tests/helpers/session";

afterEach(() => {
  unstubEnvs();
  vi.restoreAllMocks();
});

const create = (cookie: string, name: string) => callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: { name } }));

/**
 * Holds the user's row lock from a connection of its own (another request's
 * long transaction on a healthy database): a project creation's transaction
 * waits for it, holding its pooled connection, until `release()`.
 */
async function holdUserRow(userId: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [userId]);
  return async () => {
    await client.query("COMMIT");
    await client.end();
  };
}

describe("MAX_PROJECTS_PER_USER under concurrency", () => {
  it("20 concurrent creations with 2 of 5 left make exactly 2 projects; the rest are 409", async () => {
    stubEnv("MAX_PROJECTS_PER_USER", "5");
    const { user, cookie } = await createUserWithSession();
    for (let i = 0; i < 3; i++) await createProject(user.id, `cap-${i}`);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(cookie, `race-${i}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(2).fill(201), ...Array(18).fill(409)]);
    expect(await prisma.membership.count({ where: { userId: user.id, role: "owner" } })).toBe(5);
  });
});

// The embedded database runs one transaction at a time for all connections:
// holding a row lock there would stop every other test file, not just these.
describe.skipIf(inject("databaseKind") === "embedded")("transactions on a busy database", () => {
  it("80 concurrent creations, each waiting longer than Prisma's 2 s maxWait for a connection: all queue and are made, none is a 503", async () => {
    stubEnv("MAX_PROJECTS_PER_USER", "1000");
    const { cookie, user } = await createUserWithSession();
    const release = await holdUserRow(user.id);
    const answers = Promise.all(Array.from({ length: 80 }, (_, i) => create(cookie, `burst-${i}`)));
    // Every creation has passed its cap check and holds or waits for a transaction; then held past Prisma's default maxWait.
    await vi.waitFor(() => expect(transactionQueue().running + transactionQueue().waiting).toBe(80), { timeout: 60_000, interval: 20 });
    await new Promise<void>((resolve) => setTimeout(resolve, 2_500));
    await release();
    const statuses = (await answers).map((a) => `${a.status} ${a.body.code ?? ""}`.trim());
    expect(statuses.filter((s) => !s.startsWith("201"))).toEqual([]);
    expect(await prisma.membership.count({ where: { userId: user.id, role: "owner" } })).toBe(80);
  });

  it("past the query deadline in the queue the answer is 429 with Retry-After, and the log says the server was busy", async () => {
    stubEnv("DATABASE_QUERY_TIMEOUT_MS", "1000");
    const warn = vi.spyOn(logger, "warn");
    const { cookie, user } = await createUserWithSession();
    const release = await holdUserRow(user.id);
    const settled: number[] = [];
    const answers = Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        create(cookie, `late-${i}`).then((a) => {
          settled.push(a.status);
          return a;
        }),
      ),
    );
    try {
      // Those that got a transaction wait on the lock; the others give up after 1 s in the queue.
      await vi.waitFor(() => expect(settled.length).toBe(20 - transactionQueue().capacity), { timeout: 60_000, interval: 20 });
    } finally {
      await release();
    }
    const all = await answers;
    const busy = all.filter((a) => a.status === 429);
    expect(busy.length).toBe(20 - transactionQueue().capacity);
    for (const a of busy) {
      expect(a.body.code).toBe("rate_limited");
      expect(Number(a.res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(all.filter((a) => a.status !== 429).map((a) => a.status)).toEqual(Array(transactionQueue().capacity).fill(201));
    const lines = warn.mock.calls.filter(([message]) => message.startsWith("server busy"));
    expect(lines.length).toBe(busy.length);
    expect(lines[0]![1]).toMatchObject({ work: "project creation" });
    expect(warn.mock.calls.some(([message]) => message === "database unavailable")).toBe(false);
  });
});
