import { describe, expect, it } from "vitest";
import { parseSummarizeQuery } from "@/lib/ai/schemas";

const parse = (query: string) => parseSummarizeQuery(new URLSearchParams(query));

describe("summary query: since", () => {
  it("reads seconds below 10^12 and milliseconds from 10^12 up", () => {
    expect(parse("since=1767225600").since?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parse("since=1767225600000").since?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parse("since=0").since?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
  });

  it("refuses instants after the year 9999 (the database cannot compare them)", () => {
    expect(parse("since=253402300799999").since?.toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(() => parse("since=253402300800000")).toThrow(expect.objectContaining({ status: 400, code: "validation_failed" }));
    expect(() => parse("since=999999999999")).toThrow(expect.objectContaining({ status: 400 })); // seconds: year 33658
  });
});
