import { describe, expect, it } from "vitest";
import { mayStartStatement, msUntilStatementMayStart, type WriterState } from "@/lib/ingest/group-commit";

// A request just queued behind one statement that started a moment ago.
const waiting: WriterState = { queued: 3, queuedRows: 3, inFlight: 1, maxInFlight: 4, newestStatementMs: 0.5, sinceLastArrivalMs: 0.2 };

describe("when group commit starts a statement", () => {
  it("starts one at once when none is in flight, and none without requests", () => {
    expect(mayStartStatement({ ...waiting, inFlight: 0, newestStatementMs: Infinity })).toBe(true);
    expect(mayStartStatement({ ...waiting, queued: 0, queuedRows: 0, inFlight: 0 })).toBe(false);
  });

  it("lets requests that keep arriving gather behind the statement in flight", () => {
    expect(mayStartStatement(waiting)).toBe(false);
    expect(mayStartStatement({ ...waiting, newestStatementMs: 49, sinceLastArrivalMs: 1.9 })).toBe(false);
  });

  it("starts another beside it when the queue goes quiet, the statement stalls, or the backlog is large", () => {
    expect(mayStartStatement({ ...waiting, sinceLastArrivalMs: 2 })).toBe(true);
    expect(mayStartStatement({ ...waiting, newestStatementMs: 50 })).toBe(true);
    expect(mayStartStatement({ ...waiting, queued: 5, queuedRows: 500 })).toBe(true);
  });

  it("never goes past INGEST_MAX_CONCURRENT_WRITES, whatever waits", () => {
    const atLimit = { ...waiting, inFlight: 4, queuedRows: 5_000, newestStatementMs: 1_000, sinceLastArrivalMs: 1_000 };
    expect(mayStartStatement(atLimit)).toBe(false);
    expect(msUntilStatementMayStart(atLimit)).toBeNull();
  });

  it("looks again when the quiet or the stall rule could turn true, whichever comes first", () => {
    expect(msUntilStatementMayStart({ ...waiting, sinceLastArrivalMs: 0.5 })).toBe(1.5);
    expect(msUntilStatementMayStart({ ...waiting, sinceLastArrivalMs: 0 })).toBe(2);
    // Never a zero-delay timer loop.
    expect(msUntilStatementMayStart({ ...waiting, sinceLastArrivalMs: 1.99 })).toBe(1);
    // Nothing in flight or nothing waiting: no timer (a statement ending, or the next request, decides).
    expect(msUntilStatementMayStart({ ...waiting, inFlight: 0 })).toBeNull();
    expect(msUntilStatementMayStart({ ...waiting, queued: 0, queuedRows: 0 })).toBeNull();
  });
});
