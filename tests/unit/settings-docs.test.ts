import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseSettings, SETTING_SPECS } from "@/lib/config/settings";

const root = path.resolve(__dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const example = fs.readFileSync(path.join(root, ".env.example"), "utf8");
// Set by Next.js itself, not by operators.
const NOT_OPERATOR_SETTINGS = new Set(["NODE_ENV"]);
const names = Object.keys(SETTING_SPECS).filter((name) => !NOT_OPERATOR_SETTINGS.has(name));

describe("configuration docs", () => {
  it("every setting is in the README's table and in .env.example", () => {
    const missingFromReadme = names.filter((name) => !readme.includes(`\`${name}\``));
    const missingFromExample = names.filter((name) => !new RegExp(`^#? ?${name}=`, "m").test(example));
    expect({ missingFromReadme, missingFromExample }).toEqual({ missingFromReadme: [], missingFromExample: [] });
  });

  it("the values .env.example sets are the defaults the code uses", () => {
    const env: Record<string, string> = {};
    for (const line of example.split("\n")) {
      const match = /^([A-Z_]+)=(.*)$/.exec(line);
      if (match) env[match[1]!] = match[2]!.replace(/^"(.*)"$/, "$1");
    }
    expect(Object.keys(env).filter((name) => !(name in SETTING_SPECS))).toEqual([]);
    expect(parseSettings(env).settings).toEqual(parseSettings({}).settings);
  });
});
