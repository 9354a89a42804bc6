import { describe, expect, it } from "vitest";
import { knownTimeZone, wallTimeToUtc, zoneOffsetMs } from "@/lib/events/wall-time";

const iso = (value: string, zone: string) => {
  const ms = wallTimeToUtc(value, zone);
  return Number.isNaN(ms) ? "NaN" : new Date(ms).toISOString();
};

describe("wall-clock times in a time zone", () => {
  it("uses each date's own offset, on both sides of a daylight-saving change", () => {
    expect(iso("2026-07-01T10:00", "Europe/Berlin")).toBe("2026-07-01T08:00:00.000Z");
    expect(iso("2026-11-26T10:00", "Europe/Berlin")).toBe("2026-11-26T09:00:00.000Z");
    expect(iso("2026-07-01T10:00", "America/New_York")).toBe("2026-07-01T14:00:00.000Z");
    expect(iso("2026-01-15T10:00", "America/New_York")).toBe("2026-01-15T15:00:00.000Z");
    expect(iso("2026-01-15T10:00", "Australia/Sydney")).toBe("2026-01-14T23:00:00.000Z");
    expect(iso("2026-07-01T10:00", "Australia/Sydney")).toBe("2026-07-01T00:00:00.000Z");
  });

  it("reads a time that occurs twice as the first, and one that does not occur as the gap's end, as browsers do", () => {
    // Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice.
    expect(iso("2026-10-25T02:30", "Europe/Berlin")).toBe("2026-10-25T00:30:00.000Z");
    expect(iso("2026-10-25T01:59", "Europe/Berlin")).toBe("2026-10-24T23:59:00.000Z");
    expect(iso("2026-10-25T03:00", "Europe/Berlin")).toBe("2026-10-25T02:00:00.000Z");
    // Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST; 02:30 does not exist (read as 03:30 CEST).
    expect(iso("2026-03-29T02:30", "Europe/Berlin")).toBe("2026-03-29T01:30:00.000Z");
    expect(iso("2026-03-08T02:30", "America/New_York")).toBe("2026-03-08T07:30:00.000Z");
    expect(iso("2026-11-01T01:30", "America/New_York")).toBe("2026-11-01T05:30:00.000Z");
  });

  it("handles offsets that are not whole hours, UTC, seconds, and the first and last years", () => {
    expect(iso("2026-07-01T10:00", "Asia/Kolkata")).toBe("2026-07-01T04:30:00.000Z");
    expect(iso("2026-07-01T10:00", "Pacific/Chatham")).toBe("2026-06-30T21:15:00.000Z");
    expect(iso("2026-07-01T10:00:30", "UTC")).toBe("2026-07-01T10:00:30.000Z");
    expect(iso("0001-01-01T00:00", "UTC")).toBe("0001-01-01T00:00:00.000Z");
    expect(iso("9999-12-31T23:59", "Asia/Tokyo")).toBe("9999-12-31T14:59:00.000Z");
  });

  it("refuses dates that do not exist and text that is not a time", () => {
    expect(iso("2026-02-31T10:00", "UTC")).toBe("NaN");
    expect(iso("2026-13-01T10:00", "UTC")).toBe("NaN");
    expect(iso("2026-01-01T24:00", "UTC")).toBe("NaN");
    expect(iso("2026-01-01 10:00", "UTC")).toBe("NaN");
    expect(iso("", "UTC")).toBe("NaN");
  });

  it("knows real zone names only", () => {
    expect(knownTimeZone("Europe/Paris")).toBe("Europe/Paris");
    expect(knownTimeZone("UTC")).toBe("UTC");
    expect(knownTimeZone("Mars/Olympus_Mons")).toBeNull();
    expect(knownTimeZone("-60")).toBeNull();
    expect(knownTimeZone("../etc/passwd")).toBeNull();
    expect(knownTimeZone("")).toBeNull();
  });

  it("reports a zone's offset at an instant", () => {
    expect(zoneOffsetMs(Date.parse("2026-07-01T00:00:00Z"), "Europe/Paris")).toBe(2 * 3_600_000);
    expect(zoneOffsetMs(Date.parse("2026-12-01T00:00:00.999Z"), "Europe/Paris")).toBe(3_600_000);
    expect(zoneOffsetMs(Date.parse("2026-07-01T00:00:00Z"), "America/Los_Angeles")).toBe(-7 * 3_600_000);
  });
});
