import { describe, expect, it } from "vitest";
import { formatRelative, formatTime } from "@/components/time-format";

const now = Date.parse("2026-05-01T12:00:00Z");
const ago = (ms: number) => new Date(now - ms).toISOString();

describe("relative times", () => {
  it("rounds down, so a time is never reported older than it is", () => {
    expect(formatRelative(ago(5_000), now)).toBe("just now");
    expect(formatRelative(ago(45_000), now)).toBe("45 s ago");
    expect(formatRelative(ago(3 * 60_000 + 59_000), now)).toBe("3 min ago");
    expect(formatRelative(ago(59 * 60_000 + 59_000), now)).toBe("59 min ago");
    expect(formatRelative(ago(2 * 3_600_000), now)).toBe("2 h ago");
    expect(formatRelative(ago(5 * 86_400_000 + 1), now)).toBe("5 d ago");
    expect(formatRelative(ago(90 * 86_400_000), now)).toBe("3 mo ago");
    expect(formatRelative(ago(800 * 86_400_000), now)).toBe("2 y ago");
  });

  it("says 'in' for times ahead (an invitation's expiry)", () => {
    expect(formatRelative(now + 7 * 86_400_000, now)).toBe("in 7 d");
    expect(formatRelative(now + 7 * 86_400_000 - 5_000, now)).toBe("in 7 d");
  });

  it("accepts numbers and dates, and says nothing for an invalid time", () => {
    expect(formatRelative(now - 120_000, now)).toBe("2 min ago");
    expect(formatRelative(new Date(now - 120_000), now)).toBe("2 min ago");
    expect(formatRelative("not a time", now)).toBe("");
  });
});

describe("absolute times", () => {
  const iso = "2026-05-01T14:03:22.123Z";

  it("names the zone beside every time of day", () => {
    expect(formatTime(iso, "utc")).toBe("May 1, 14:03:22 UTC");
    expect(formatTime(iso, "local", "datetime", "Asia/Kolkata")).toBe("May 1, 19:33:22 GMT+5:30");
    expect(formatTime(iso, "utc", "time")).toBe("14:03 UTC");
    expect(formatTime(iso, "utc", "precise")).toBe("May 1, 2026, 14:03:22.123 UTC");
  });

  it("UTC mode ignores the reader's zone; dates carry no zone", () => {
    expect(formatTime(iso, "utc", "datetime", "Asia/Kolkata")).toBe("May 1, 14:03:22 UTC");
    expect(formatTime("2026-05-01T23:30:00Z", "local", "date", "Asia/Kolkata")).toBe("May 2, 2026");
    expect(formatTime("2026-05-01T23:30:00Z", "utc", "date")).toBe("May 1, 2026");
  });
});
