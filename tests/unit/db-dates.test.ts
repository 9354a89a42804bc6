import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import "@/lib/db/client";

const { prepareValue } = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;
const zone = process.env.TZ;

afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe("dates sent to node-postgres (Kysely's parameters)", () => {
  it("are written in UTC, exact even where the local zone's old offset had seconds", () => {
    // In Paris, 0001-01-01 had local mean time, +00:09:21: pg's local form dropped the 21 seconds.
    process.env.TZ = "Europe/Paris";
    expect(prepareValue(new Date("0001-01-01T00:00:00.000Z"))).toBe("0001-01-01T00:00:00.000+00:00");
    expect(prepareValue(new Date("2026-07-01T12:34:56.789Z"))).toBe("2026-07-01T12:34:56.789+00:00");
  });
});
