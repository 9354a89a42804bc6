import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { decodeCursor, encodeCursor } from "@/lib/events/cursor";
import { parseEventsQuery, parseTimeParam } from "@/lib/events/filters";
import { eventHistogram, histogramBucketMs } from "@/lib/issues/histogram";
import { escapeLike, listProjectEvents } from "@/lib/events/list";
import type { ProjectAccess } from "@/lib/auth/access";

// Only its ids matter to code that refuses input before any query.
const nobody = { userId: "nobody", projectId: "nothing" } as ProjectAccess;

const ID = "0190f2c4-8a1b-7c3d-9e4f-123456789abc";

function problems(query: Record<string, string>): string[] {
  try {
    parseEventsQuery(query);
  } catch (error) {
    if (error instanceof AppError && error.code === "validation_failed") return error.errors!.map((e) => e.path).sort();
    throw error;
  }
  return [];
}

describe("events cursor", () => {
  it("round-trips the position and is URL-safe", () => {
    const position = { at: new Date("2026-03-04T05:06:07.089Z"), id: ID };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  it("rejects anything that is not one of ours", () => {
    const enc = (s: string) => Buffer.from(s).toString("base64url");
    for (const bad of ["", "abc", "!!!", enc("v1.123"), enc(`v2.123.${ID}`), enc(`v1.-5.${ID}`), enc("v1.123.not-a-uuid-at-all-xxxxxxxxxxxxxxx"), enc(`v1.1e5.${ID}`), "a".repeat(300)]) {
      expect(decodeCursor(bad), bad).toBeNull();
    }
  });
});

describe("parseTimeParam", () => {
  it("reads ISO 8601 with a zone, dates, unix seconds and unix milliseconds", () => {
    expect(parseTimeParam("2026-01-02T03:04:05Z")?.toISOString()).toBe("2026-01-02T03:04:05.000Z");
    expect(parseTimeParam("2026-01-02T03:04:05.5+02:00")?.toISOString()).toBe("2026-01-02T01:04:05.500Z");
    expect(parseTimeParam("2026-01-02")?.toISOString()).toBe("2026-01-02T00:00:00.000Z");
    expect(parseTimeParam("1767225600")?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parseTimeParam("1767225600000")?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parseTimeParam("99999999999")?.toISOString()).toBe(new Date(99999999999 * 1000).toISOString()); // below 10^12: seconds
    expect(parseTimeParam("0")?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
  });

  it("refuses ambiguous or malformed times", () => {
    for (const bad of ["", "yesterday", "-5", "1.5", "2026-01-02T03:04:05", "2026-13-45", "2026-01-02T03:04Zjunk", "1e12", "999999999999", "9999999999999999"]) {
      expect(parseTimeParam(bad), bad).toBeNull();
    }
  });
});

describe("parseEventsQuery", () => {
  it("parses every filter", () => {
    const cursor = encodeCursor({ at: new Date(0), id: ID });
    expect(parseEventsQuery({ level: "error, WARN", q: "  timeout ", since: "0", until: "2026-01-01", cursor, limit: "200", other: "ignored" })).toEqual({
      level: ["error", "warn"],
      q: "timeout",
      since: new Date(0),
      until: new Date("2026-01-01T00:00:00Z"),
      cursor,
      limit: 200,
    });
    expect(parseEventsQuery({})).toEqual({});
    expect(parseEventsQuery({ q: "   " }).q).toBeUndefined();
  });

  it("lists every problem at once", () => {
    expect(problems({ level: "fatal", limit: "0", since: "soon", until: "x", cursor: "nope" })).toEqual(["cursor", "level", "limit", "since", "until"]);
    expect(problems({ limit: "201" })).toEqual(["limit"]);
    expect(problems({ limit: "2.5" })).toEqual(["limit"]);
    expect(problems({ level: "error,," })).toEqual([]);
    expect(problems({ level: "," })).toEqual(["level"]);
    expect(problems({ since: "2026-01-02", until: "2026-01-01" })).toEqual(["until"]);
    expect(problems({ q: "x".repeat(201) })).toEqual(["q"]);
    expect(problems({ q: "a\u0000b" })).toEqual(["q"]);
  });
});

describe("times the database cannot take", () => {
  const enc = (s: string) => Buffer.from(s).toString("base64url");

  it("refuses a cursor whose time lies beyond year 9999", () => {
    expect(decodeCursor(enc(`v1.999999999999999.${ID}`))).toBeNull();
    expect(decodeCursor(enc(`v1.253402300800000.${ID}`))).toBeNull(); // 10000-01-01
    expect(decodeCursor(enc(`v1.253402300799999.${ID}`))?.at.toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(problems({ cursor: enc(`v1.999999999999999.${ID}`) })).toEqual(["cursor"]);
  });

  it("refuses since/until before year 0001 (PostgreSQL has no year 0) or after 9999", () => {
    expect(parseTimeParam("0000-01-01")).toBeNull();
    expect(parseTimeParam("0000-12-31T23:59:59Z")).toBeNull();
    expect(parseTimeParam("0001-01-01T00:30:00+01:00")).toBeNull(); // year 0 in UTC
    expect(parseTimeParam("0001-01-01")?.toISOString()).toBe("0001-01-01T00:00:00.000Z");
    expect(parseTimeParam("9999-12-31T23:59:59.999Z")?.toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(problems({ since: "0000-01-01", until: "0000-01-02" })).toEqual(["since", "until"]);
  });

  it("checks dates handed in by code too: 400 validation_failed, before any query", async () => {
    for (const since of [new Date("0000-01-01T00:00:00Z"), new Date(8.64e15)]) {
      await expect(listProjectEvents(nobody, { since })).rejects.toMatchObject({ code: "validation_failed", errors: [{ path: "since" }] });
      await expect(eventHistogram(nobody, { since })).rejects.toMatchObject({ code: "validation_failed" });
    }
  });
});

describe("limit", () => {
  it("answers one clean problem for a number too large for JavaScript", () => {
    for (const limit of ["999999999999999999999", "9007199254740993", "1e3", "-1", "", " 5"]) {
      let thrown: AppError | undefined;
      try {
        parseEventsQuery({ limit });
      } catch (error) {
        thrown = error as AppError;
      }
      expect(thrown?.errors, limit).toEqual([{ path: "limit", message: "Use a whole number from 1 to 200." }]);
    }
    expect(parseEventsQuery({ limit: "007" }).limit).toBe(7);
  });
});

describe("escapeLike", () => {
  it("escapes LIKE wildcards and the escape character", () => {
    expect(escapeLike("100%_done\\now")).toBe("100\\%\\_done\\\\now");
    expect(escapeLike("plain")).toBe("plain");
  });
});

describe("histogramBucketMs", () => {
  it("picks a readable bucket size that keeps the chart at most 120 buckets wide, whole hours from 12 hours up", () => {
    expect(histogramBucketMs(3600_000)).toBe(60_000);
    expect(histogramBucketMs(6 * 3600_000)).toBe(5 * 60_000);
    expect(histogramBucketMs(12 * 3600_000 - 1)).toBe(15 * 60_000);
    expect(histogramBucketMs(12 * 3600_000)).toBe(3600_000);
    expect(histogramBucketMs(86_400_000)).toBe(3600_000);
    expect(histogramBucketMs(7 * 86_400_000)).toBe(6 * 3600_000);
    expect(histogramBucketMs(90 * 86_400_000)).toBe(86_400_000);
    const decade = 3650 * 86_400_000;
    expect(decade / histogramBucketMs(decade)).toBeLessThanOrEqual(120);
  });
});
