import { describe, expect, it } from "vitest";
import { summarizeQuerySchema } from "@/lib/ai/schemas";
import { parseInput, queryObject } from "@/lib/http/input";

const parse = (query: string) => parseInput(summarizeQuerySchema, queryObject(new URLSearchParams(query)), "query");

describe("summary query", () => {
  it("reads seconds below 10^12 and milliseconds from 10^12 up", () => {
    expect(parse("since=1767225600").since?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parse("since=1767225600000").since?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parse("since=0").since?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
    expect(parse("")).toEqual({ limit: 50, since: null });
  });

  it("refuses instants after the year 9999 (the database cannot compare them)", () => {
    expect(parse("since=253402300799999").since?.toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(() => parse("since=253402300800000")).toThrow(expect.objectContaining({ status: 400, code: "validation_failed" }));
    expect(() => parse("since=999999999999")).toThrow(expect.objectContaining({ status: 400 })); // seconds: year 33658
  });

  it("refuses a projectId that cannot be an id (NUL, spaces, too long) and a parameter given twice", () => {
    for (const bad of ["projectId=a%00b", "projectId=a%20b", `projectId=${"x".repeat(101)}`, "projectId=", "limit=5&limit=6"]) {
      expect(() => parse(bad), bad).toThrow(expect.objectContaining({ status: 400, code: "validation_failed" }));
    }
    expect(parse("projectId=cm1abc_DEF-2").projectId).toBe("cm1abc_DEF-2");
  });
});
