import { describe, expect, it } from "vitest";
import { issuePeriod, issueQueryString, parseEventQuery, parseIssueQuery } from "@/app/(dashboard)/projects/[id]/filters";

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
  it("reads a custom range in the reader's zone, with each date's own offset", () => {
    // Typed in November for a range in July, in Berlin: July is UTC+2, not November's UTC+1.
    const summer = parseEventQuery({ range: "custom", from: "2026-07-01T10:00", to: "2026-07-01T12:00", tz: "Europe/Berlin" }, now);
    expect(summer.since.toISOString()).toBe("2026-07-01T08:00:00.000Z");
    expect(summer.until?.toISOString()).toBe("2026-07-01T10:00:00.000Z");
    // Across the change: the start in summer time, the end in winter time.
    const across = parseEventQuery({ range: "custom", from: "2025-10-25T12:00", to: "2025-10-26T12:00", tz: "Europe/Berlin" }, now);
    expect(across.since.toISOString()).toBe("2025-10-25T10:00:00.000Z");
    expect(across.until?.toISOString()).toBe("2025-10-26T11:00:00.000Z");
    expect(parseEventQuery({ range: "custom", from: "2026-04-01T10:00", tz: "UTC" }, now).since.toISOString()).toBe("2026-04-01T10:00:00.000Z");
    // Links made before carry a getTimezoneOffset value in minutes; an unknown zone reads as UTC.
    expect(parseEventQuery({ range: "custom", from: "2026-04-01T10:00", tz: "-120" }, now).since.toISOString()).toBe("2026-04-01T08:00:00.000Z");
    expect(parseEventQuery({ range: "custom", from: "2026-04-01T10:00", tz: "Nowhere/Atlantis" }, now).since.toISOString()).toBe("2026-04-01T10:00:00.000Z");
  });
});

describe("issues page filters", () => {
  it("defaults to open issues of the last 24 hours, last seen first", () => {
    const query = parseIssueQuery({}, now);
    expect(query).toMatchObject({ status: "open", range: "24h", sort: "last_seen", since: dayBefore });
    expect(query.level).toBeUndefined();
    expect(query.cursor).toBeUndefined();
    expect(issueQueryString(query)).toBe("");
  });

  it("reads every filter by the API's rules and falls back on what the API would refuse", () => {
    const query = parseIssueQuery({ status: "resolved", level: "error", q: " stripe\u0000 ", range: "7d", sort: "events", cursor: "abc_DEF-1" }, now);
    expect(query).toMatchObject({ status: "resolved", level: ["error"], q: "stripe", range: "7d", sort: "events", cursor: "abc_DEF-1" });
    expect(query.since).toEqual(new Date(now.getTime() - 7 * 86_400_000));
    expect(query.values).toEqual({ status: "resolved", level: "error", q: "stripe", range: "7d", sort: "events", environment: "", release: "", tag: [] });

    const bad = parseIssueQuery({ status: "all", level: "fatal", range: "90d", sort: "random", cursor: "not a cursor!" }, now);
    expect(bad).toMatchObject({ status: "open", range: "24h", sort: "last_seen" });
    expect(bad.level).toBeUndefined();
    expect(bad.cursor).toBeUndefined();
    // An array (a repeated parameter) is not a value either.
    expect(parseIssueQuery({ status: ["resolved", "ignored"] }, now).status).toBe("open");
  });

  it("reads environment, release and tags (repeatable) by the API's rules, and keeps them in links", () => {
    const query = parseIssueQuery({ environment: " production ", release: "web@1.2", tag: ["region:eu", "browser:Chrome 131"] }, now);
    expect(query).toMatchObject({ environment: "production", release: "web@1.2", tag: [{ key: "region", value: "eu" }, { key: "browser", value: "Chrome 131" }] });
    expect(query.values).toMatchObject({ environment: "production", release: "web@1.2", tag: ["region:eu", "browser:Chrome 131"] });
    expect(issueQueryString(query, { status: "resolved" })).toBe("?status=resolved&environment=production&release=web%401.2&tag=region%3Aeu&tag=browser%3AChrome+131");
    // What the API would refuse is no filter.
    const bad = parseIssueQuery({ environment: "x".repeat(65), tag: "no-colon" }, now);
    expect(bad.environment).toBeUndefined();
    expect(bad.tag).toBeUndefined();
  });

  it("builds links that keep the filters and change one thing", () => {
    const query = parseIssueQuery({ level: "warn", q: "a b", range: "7d", sort: "total", cursor: "c1" }, now);
    // The status tabs and the period links start from the first page.
    expect(issueQueryString(query, { status: "ignored" })).toBe("?status=ignored&level=warn&q=a+b&range=7d&sort=total");
    expect(issueQueryString(query, { range: "24h" })).toBe("?level=warn&q=a+b&sort=total");
    expect(issueQueryString(query, { cursor: "next" })).toBe("?level=warn&q=a+b&range=7d&sort=total&cursor=next");
  });
});

describe("issue page period", () => {
  it("uses the period in the URL", () => {
    expect(issuePeriod({ range: "1h" }, undefined, now)).toMatchObject({ range: "1h", explicit: true, since: new Date(now.getTime() - 3_600_000) });
    expect(issuePeriod({ range: "1h" }, "2026-01-01T00:00:00Z", now).range).toBe("1h");
  });

  it("without one, reaches back to the issue's last event", () => {
    expect(issuePeriod({}, undefined, now)).toMatchObject({ range: "24h", explicit: false });
    expect(issuePeriod({}, new Date(now.getTime() - 3_600_000).toISOString(), now).range).toBe("24h");
    expect(issuePeriod({}, new Date(now.getTime() - 3 * 86_400_000).toISOString(), now).range).toBe("7d");
    expect(issuePeriod({}, new Date(now.getTime() - 20 * 86_400_000).toISOString(), now).range).toBe("30d");
    expect(issuePeriod({ range: "bogus" }, new Date(now.getTime() - 90 * 86_400_000).toISOString(), now).range).toBe("30d");
  });
});
