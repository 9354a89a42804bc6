import { describe, expect, it } from "vitest";
import { parseTimeZoneCookie } from "@/components/time-zone-cookie";
import { formatTime } from "@/components/time-format";

describe("the time-zone cookie", () => {
  it("keeps utc and zones the runtime knows", () => {
    expect(parseTimeZoneCookie("utc")).toBe("utc");
    expect(parseTimeZoneCookie("Asia/Kolkata")).toBe("Asia/Kolkata");
    expect(parseTimeZoneCookie("America/Argentina/Buenos_Aires")).toBe("America/Argentina/Buenos_Aires");
    expect(parseTimeZoneCookie("Etc/GMT+5")).toBe("Etc/GMT+5");
  });

  it("drops what is absent, unknown or not a zone name at all (the server then writes UTC)", () => {
    for (const value of [undefined, "", "Mars/Olympus_Mons", "Europe/Paris; Path=/", "<script>", "a".repeat(65), "/etc/passwd", "UTC "]) {
      expect(parseTimeZoneCookie(value)).toBeNull();
    }
  });

  it("formats a time in the zone the server was told, as the browser in that zone would", () => {
    const iso = "2026-11-26T09:50:00.000Z";
    expect(formatTime(iso, "local", "datetime", "Asia/Kolkata")).toBe("Nov 26, 15:20:00 GMT+5:30");
    expect(formatTime(iso, "utc", "datetime", "Asia/Kolkata")).toBe("Nov 26, 09:50:00 UTC");
  });
});
