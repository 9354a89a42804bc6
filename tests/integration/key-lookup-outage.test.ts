import { afterEach, expect, it, vi } from "vitest";
import { prisma } from "@/lib/db/client";
import { authenticateApiKey } from "@/lib/keys/service";
import { makeProject } from "@/tests/helpers/ingest";

afterEach(() => vi.restoreAllMocks());

it("a key lookup that fails with the database away fails its request, and leaves no rejection unhandled", async () => {
  const p = await makeProject("key-outage");
  const unhandled: unknown[] = [];
  const listen = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", listen);
  try {
    vi.spyOn(prisma.apiKey, "findUnique").mockRejectedValueOnce(new Error("Connection terminated unexpectedly"));
    // Not cached yet (a new project's key): the lookup reaches the database.
    await expect(authenticateApiKey(p.apiKey, "10.9.8.7")).rejects.toThrow("Connection terminated unexpectedly");
    // Unhandled rejections are reported after the microtask queue drains: give it a few turns.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    // The database back: the same key works.
    expect(await authenticateApiKey(p.apiKey, "10.9.8.7")).toMatchObject({ projectId: p.id });
  } finally {
    process.off("unhandledRejection", listen);
  }
});
