import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { adoptDevServerPort, recordDevServerPort } from "@/lib/config/dev-server";

const scratch = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "telltale-dev-server-")), "dev-server.json");

describe("the operator CLI finds the port of a running npm run dev", () => {
  it("takes the recorded port while that dev server runs", () => {
    const file = scratch();
    recordDevServerPort(3400, file);
    const env: Record<string, string | undefined> = {};
    expect(adoptDevServerPort(env, file)).toBe(3400);
    expect(env.PORT).toBe("3400");
  });

  it("keeps PORT or AUTH_URL when set, and ignores a record of a server that has stopped or no record", () => {
    const file = scratch();
    recordDevServerPort(3400, file);
    for (const env of [{ PORT: "3100" }, { AUTH_URL: "https://telltale.example.com" }]) {
      const copy: Record<string, string | undefined> = { ...env };
      expect(adoptDevServerPort(copy, file)).toBeNull();
      expect(copy).toEqual(env);
    }
    // A pid no process has (beyond the kernel's limit).
    fs.writeFileSync(file, JSON.stringify({ port: 3400, pid: 2 ** 30 }));
    expect(adoptDevServerPort({}, file)).toBeNull();
    expect(adoptDevServerPort({}, `${file}.missing`)).toBeNull();
    fs.writeFileSync(file, "not json");
    expect(adoptDevServerPort({}, file)).toBeNull();
  });
});
