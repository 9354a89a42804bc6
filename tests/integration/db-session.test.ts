/**
 * Every connection of the app's pool starts with its session settings
 * (lib/db/client.ts sessionSettingsSql): the statement deadline, no JIT, no
 * parallel workers, applied before the connection runs anything else.
 */
import { describe, expect, it } from "vitest";
import { dbPool, statementTimeoutMs } from "@/lib/db/client";
import { settings } from "@/lib/config/settings";

// Through a transaction-mode pooler the SETs land on one server connection
// and the next statement may run on another: there the role carries these
// settings (docs/scaling.md), not the app.
describe.skipIf(process.env.TEST_PGBOUNCER === "1")("the app's database sessions", () => {
  it("run with the statement deadline, without JIT and without parallel workers, on every connection", async () => {
    // Several at once: each on a connection of its own, new ones included.
    const rows = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = await dbPool().connect();
        try {
          const { rows } = await client.query<{ st: string; jit: string; par: string }>(
            "SELECT current_setting('statement_timeout') AS st, current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS par",
          );
          return rows[0]!;
        } finally {
          client.release();
        }
      }),
    );
    const deadline = `${statementTimeoutMs(settings().database.queryTimeoutMs)}ms`;
    const asSet = (value: string) => (/^\d+$/.test(value) ? `${value}ms` : value.replace(/^(\d+)s$/, (_, s: string) => `${Number(s) * 1000}ms`));
    for (const row of rows) expect({ ...row, st: asSet(row.st) }).toEqual({ st: deadline, jit: "off", par: "0" });
  });
});
