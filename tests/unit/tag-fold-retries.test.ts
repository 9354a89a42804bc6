/**
 * The tag fold's retries (lib/issues/tag-backlog.ts withFoldRetries): a
 * fold that passes the statement's deadline is tried again with half the
 * tag rows, a deadlock with the same, anything else is thrown at once.
 */
import { describe, expect, it } from "vitest";
import { MAX_FOLD_TRIES, nextFoldBudget, TAG_ROWS_PER_FOLD, withFoldRetries, withKeptBudget } from "@/lib/issues/tag-backlog";

const done = { statements: 3, tagRows: 10, busy: false };
const pastDeadline = Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" });
const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });

describe("withFoldRetries", () => {
  it("halves the budget after each fold that passed the deadline, until one fits, and says so each time", async () => {
    const budgets: number[] = [];
    const halved: number[] = [];
    const report = await withFoldRetries(
      100_000,
      async (budget) => {
        budgets.push(budget);
        if (budget > 30_000) throw pastDeadline;
        return done;
      },
      (budget) => halved.push(budget),
    );
    expect(report).toEqual(done);
    expect(budgets).toEqual([100_000, 50_000, 25_000]);
    expect(halved).toEqual([50_000, 25_000]);
  });

  it("grows a kept budget back by a tenth per fold that fitted, never past TAG_ROWS_PER_FOLD", () => {
    expect(nextFoldBudget(25_000)).toBe(27_500);
    expect(nextFoldBudget(TAG_ROWS_PER_FOLD - 1)).toBe(TAG_ROWS_PER_FOLD);
    expect(nextFoldBudget(TAG_ROWS_PER_FOLD)).toBe(TAG_ROWS_PER_FOLD);
  });

  it("tries a deadlocked fold again with the same budget", async () => {
    const budgets: number[] = [];
    await withFoldRetries(100_000, async (budget) => {
      budgets.push(budget);
      if (budgets.length < 3) throw deadlock;
      return done;
    });
    expect(budgets).toEqual([100_000, 100_000, 100_000]);
  });

  it("throws any other error at once, and the last one after MAX_FOLD_TRIES tries", async () => {
    let calls = 0;
    const other = new Error("relation does not exist");
    await expect(withFoldRetries(1_000, async () => (calls++, Promise.reject(other)))).rejects.toBe(other);
    expect(calls).toBe(1);

    const budgets: number[] = [];
    await expect(withFoldRetries(64, async (budget) => (budgets.push(budget), Promise.reject(pastDeadline)))).rejects.toBe(pastDeadline);
    expect(budgets).toEqual([64, 32, 16, 8, 4, 2].slice(0, MAX_FOLD_TRIES));
  });
});

describe("withKeptBudget (the process's budget between background folds)", () => {
  it("keeps a budget the retries halved, grows it by a tenth per fold that fits at once, and stops at TAG_ROWS_PER_FOLD", async () => {
    const kept = { rows: TAG_ROWS_PER_FOLD };
    const budgets: number[] = [];
    const fitsUnder = (limit: number) => async (budget: number) => {
      budgets.push(budget);
      if (budget > limit) throw pastDeadline;
      return done;
    };
    await withKeptBudget(kept, fitsUnder(TAG_ROWS_PER_FOLD / 2));
    expect(budgets).toEqual([TAG_ROWS_PER_FOLD, TAG_ROWS_PER_FOLD / 2]);
    expect(kept.rows).toBe(TAG_ROWS_PER_FOLD / 2);

    budgets.length = 0;
    await withKeptBudget(kept, fitsUnder(Infinity));
    await withKeptBudget(kept, fitsUnder(Infinity));
    expect(budgets).toEqual([TAG_ROWS_PER_FOLD / 2, nextFoldBudget(TAG_ROWS_PER_FOLD / 2)]);
    expect(kept.rows).toBe(nextFoldBudget(nextFoldBudget(TAG_ROWS_PER_FOLD / 2)));

    for (let i = 0; i < 20; i++) await withKeptBudget(kept, fitsUnder(Infinity));
    expect(kept.rows).toBe(TAG_ROWS_PER_FOLD);
  });

  it("keeps the halved budget when every try failed", async () => {
    const kept = { rows: 64 };
    await expect(withKeptBudget(kept, async () => Promise.reject(pastDeadline))).rejects.toBe(pastDeadline);
    expect(kept.rows).toBe(64 / 2 ** (MAX_FOLD_TRIES - 1));
  });
});
