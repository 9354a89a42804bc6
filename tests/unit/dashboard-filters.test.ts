import { describe, expect, it } from "vitest";
import { parseEventQuery } from "@/app/(dashboard)/projects/[id]/filters";

const now = new Date("2026-05-01T12:00:00Z");
const dayBefore = new Date(now.getTime() - 86_400_000);

describe("events page filters", () => {
  it("strips NUL and other control characters from the search text", () => {
    expect(parseEventQuery({ q: "\u0000" }, now).q).toBeUndefined();
    expect(parseEventQuery({ q: "time\u0000out\u0007\n" }, now)).toMatchObject({ q: "timeout", values: { q: "timeout" } });
    expect(parseEventQuery({ q: "  plain text  " }, now).q).toBe("plain text");
  });

  it("falls back to the default range for custom times outside years 0001 to 9999", () => {
    const yearZero = parseEventQuery({ range: "custom", from: "0000-01-01T00:00" }, now);
    expect(yearZero.since).toEqual(dayBefore);
    expect(yearZero.until).toBeUndefined();
    const shifted = parseEventQuery({ range: "custom", from: "0001-01-01T00:00", tz: "-60" }, now); // 0000-12-31T23:00Z
    expect(shifted.since).toEqual(dayBefore);
    const tooLate = parseEventQuery({ range: "custom", from: "2026-01-01T00:00", to: "9999-12-31T23:59", tz: "600" }, now);
    expect(tooLate.since).toEqual(new Date("2026-01-01T10:00:00Z"));
    expect(tooLate.until).toBeUndefined();
    const earliest = parseEventQuery({ range: "custom", from: "0001-01-01T00:00", to: "0001-01-02T00:00" }, now);
    expect(earliest.since.toISOString()).toBe("0001-01-01T00:00:00.000Z");
    expect(earliest.until?.toISOString()).toBe("0001-01-02T00:00:00.000Z");
  });
});
