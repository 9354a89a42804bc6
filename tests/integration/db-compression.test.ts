/**
 * Large values are compressed with lz4 where PostgreSQL has it (migration
 * 20261128124450): an SDK-sized event's context and the tag count backlog's
 * arrays. The embedded database has no lz4 and keeps pglz; either way the
 * event reads back whole.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { validateEvent } from "@/lib/events/schema";
import { newEventRow } from "@/lib/ingest/ingest";
import { storeEventsNow } from "@/lib/ingest/writer";
import { makeProject } from "@/tests/helpers/ingest";

/** lz4 where the server was built with it (Debian's PostgreSQL, CI's), else pglz (the embedded PGlite). */
let expected: "lz4" | "pglz";
beforeAll(async () => {
  const [{ methods }] = (await prisma.$queryRaw<{ methods: string[] }[]>`SELECT enumvals AS methods FROM pg_settings WHERE name = 'default_toast_compression'`) as [{ methods: string[] }];
  expected = methods.includes("lz4") ? "lz4" : "pglz";
});

describe("compression of large values", () => {
  it("stores an SDK-sized context and the backlog's arrays with lz4 where the server has it, and reads the context back unchanged", async () => {
    const p = await makeProject("compression");
    const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: p.id }, select: { id: true } });
    // About 6 KB of frames, as an exception's stack trace: past the size at which PostgreSQL compresses a row.
    const frames = Array.from({ length: 60 }, (_, i) => ({ filename: `/app/src/service/module-${i}.ts`, function: `handler${i}`, lineno: 10 + i, in_app: i % 3 === 0 }));
    const context = { exception: { values: [{ type: "TypeError", value: "Cannot read properties of undefined", stacktrace: { frames } }] } };
    // Tags with many values: the backlog row's arrays grow past that size too.
    const rows = Array.from({ length: 40 }, (_, i) => {
      const { event } = validateEvent({ projectId: p.id, level: "error", message: "Checkout failed", context, user: { id: `user-${i}-${"x".repeat(40)}` }, tags: { request: `req-${i}-${"y".repeat(60)}` } });
      return newEventRow(event!, key.id, new Date());
    });
    await storeEventsNow(rows);

    const [stored] = await prisma.$queryRaw<{ method: string | null; context: unknown }[]>`
      SELECT pg_column_compression(context) AS method, context FROM events WHERE id = ${rows[0]!.id}::uuid`;
    expect(stored!.method).toBe(expected);
    expect(stored!.context).toEqual(context);

    // The columns' setting (another file's fold may take the backlog row below before this test reads it).
    const columns = await prisma.$queryRaw<{ name: string; method: string }[]>`
      SELECT attname::text AS name, attcompression::text AS method FROM pg_attribute
      WHERE attrelid = 'tag_count_backlog'::regclass AND attname IN ('issue_ids', 'project_ids', 'hours', 'keys', 'tag_values', 'counts')
      UNION ALL SELECT attname::text, attcompression::text FROM pg_attribute WHERE attrelid = 'events'::regclass AND attname = 'context'`;
    expect(columns).toHaveLength(7);
    // "l" is lz4; "" the server's default, pglz.
    for (const column of columns) expect({ [column.name]: column.method }).toEqual({ [column.name]: expected === "lz4" ? "l" : "" });

    const backlog = await prisma.$queryRaw<{ method: string | null }[]>`
      SELECT pg_column_compression(tag_values) AS method FROM tag_count_backlog
      WHERE (SELECT id FROM issues WHERE project_id = ${p.id}) = ANY(issue_ids)`;
    // A fold running beside this test may already have taken the row.
    for (const row of backlog) expect(row.method).toBe(expected);
  });
});
