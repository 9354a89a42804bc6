/**
 * The package's shape: the core runs on any runtime with fetch (no Node.js
 * import, no Node.js global), and package.json is ready to publish.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../../packages/client");
const CORE = ["index.ts", "client.ts", "event.ts", "json-safe.ts", "retry.ts", "runtime.ts", "types.ts"];

describe("@telltale/client", () => {
  it("core modules import only each other and use no Node.js-only global unguarded", () => {
    for (const file of CORE) {
      const source = fs.readFileSync(path.join(root, "src", file), "utf8");
      const specifiers = Array.from(source.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gm), (m) => m[1]);
      for (const specifier of specifiers) expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[\w-]+\.js$/);
      expect(source, file).not.toMatch(/\brequire\(|\bBuffer\b|\bsetImmediate\b|\b__dirname\b/);
      // `process` only through globalThis, checked before use (runtime.ts).
      expect(source.replace(/\/\/.*|\/\*[\s\S]*?\*\//g, ""), file).not.toMatch(/(?<![.\w])process\./);
    }
  });

  it("package.json: name, version, ESM exports with types for . ./pino ./winston, files, engines, license, a build before pack", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    expect(pkg).toMatchObject({ name: "@telltale/client", version: "0.1.0", type: "module", license: "MIT", engines: { node: ">=18" }, publishConfig: { access: "public" } });
    for (const entry of [".", "./pino", "./winston"]) {
      const name = entry === "." ? "index" : entry.slice(2);
      expect(pkg.exports[entry]).toEqual({ types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` });
      expect(fs.existsSync(path.join(root, "src", `${name}.ts`))).toBe(true);
    }
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]));
    expect(pkg.scripts.prepack).toMatch(/build/);
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["pino-abstract-transport", "winston-transport"]);
    for (const file of ["README.md", "LICENSE"]) expect(fs.existsSync(path.join(root, file))).toBe(true);
  });
});
