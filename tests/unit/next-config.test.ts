import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_BUILD, PHASE_PRODUCTION_SERVER } from "next/constants";
import { describe, expect, it } from "vitest";
import nextConfig from "@/next.config";

describe("next.config.ts", () => {
  it("builds the standalone server (what the Dockerfile ships)", () => {
    expect(nextConfig(PHASE_PRODUCTION_BUILD).output).toBe("standalone");
  });

  it("leaves output out when `next start` (npm start) reads it, which would otherwise warn that it does not work with standalone", () => {
    expect(nextConfig(PHASE_PRODUCTION_SERVER).output).toBeUndefined();
    expect(nextConfig(PHASE_PRODUCTION_SERVER).poweredByHeader).toBe(false);
  });

  it("keeps the same headers in every phase", async () => {
    const build = await nextConfig(PHASE_PRODUCTION_BUILD).headers!();
    expect(await nextConfig(PHASE_PRODUCTION_SERVER).headers!()).toEqual(build);
    expect(await nextConfig(PHASE_DEVELOPMENT_SERVER).headers!()).toEqual(build);
  });
});
