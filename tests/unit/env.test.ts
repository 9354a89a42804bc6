import { describe, expect, it } from "vitest";
import { envInt, NUMERIC_SETTINGS, numericSettingProblems } from "@/lib/config/env";

describe("numeric settings", () => {
  it("use the default when unset or empty", () => {
    for (const [name, { fallback }] of Object.entries(NUMERIC_SETTINGS)) {
      expect(envInt(name, {})).toBe(fallback);
      expect(envInt(name, { [name]: "  " })).toBe(fallback);
    }
  });

  it("read whole numbers in range", () => {
    expect(envInt("INGEST_MAX_CONCURRENT_WRITES", { INGEST_MAX_CONCURRENT_WRITES: "8" })).toBe(8);
    expect(envInt("INGEST_RATE_LIMIT", { INGEST_RATE_LIMIT: "0" })).toBe(0);
  });

  it("refuse anything else, naming the variable (a NaN limit would switch it off or hang writes)", () => {
    for (const bad of ["four", "1.5", "-1", "1e3", "0x10"]) {
      expect(() => envInt("INGEST_MAX_CONCURRENT_WRITES", { INGEST_MAX_CONCURRENT_WRITES: bad })).toThrow(/INGEST_MAX_CONCURRENT_WRITES must be a whole number/);
    }
    expect(() => envInt("INGEST_MAX_BODY_BYTES", { INGEST_MAX_BODY_BYTES: "0" })).toThrow(/INGEST_MAX_BODY_BYTES/);
  });

  it("are all checked at once for the launchers", () => {
    expect(numericSettingProblems({})).toEqual([]);
    const problems = numericSettingProblems({ INGEST_RATE_LIMIT: "lots", DATABASE_POOL_SIZE: "0" });
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toMatch(/DATABASE_POOL_SIZE[\s\S]*INGEST_RATE_LIMIT|INGEST_RATE_LIMIT[\s\S]*DATABASE_POOL_SIZE/);
  });
});
