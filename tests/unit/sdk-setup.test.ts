/**
 * The copy-paste SDK setups on the Projects page and in the settings: every
 * language the SPEC names, the DSN filled in verbatim, and code that at
 * least parses where a parser is at hand (TypeScript's for the JavaScript
 * ones, Python's when installed).
 */
import { execFileSync } from "node:child_process";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sdkSetups } from "@/components/sdk-setup";
import { allowedOriginsSchema, normalizeOrigin, splitOriginsText } from "@/lib/projects/allowed-origins";

const DSN = "https://0123456789abcdefABCDEF0123456789@telltale.example.com:8443/17";

function hasPython(): boolean {
  try {
    execFileSync("python3", ["-c", "pass"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("sdkSetups", () => {
  const setups = sdkSetups(DSN);

  it("covers Node.js, browser JavaScript, Python, Ruby, Go, Java, PHP and .NET, each with its install line and the DSN", () => {
    expect(setups.map((s) => s.label)).toEqual(["Node.js", "Browser JavaScript", "Python", "Ruby", "Go", "Java", "PHP", ".NET"]);
    for (const setup of setups) {
      expect(setup.code, setup.label).toContain(DSN);
      expect(setup.install, setup.label).not.toBe("");
    }
    const byId = Object.fromEntries(setups.map((s) => [s.id, s]));
    expect(byId.node!.install).toBe("npm install @sentry/node");
    expect(byId.browser!.install).toBe("npm install @sentry/browser");
    expect(byId.python!.code).toContain(`sentry_sdk.init(\n    dsn="${DSN}"`);
    expect(byId.ruby!.code).toContain(`config.dsn = "${DSN}"`);
    expect(byId.go!.code).toContain(`sentry.Init(sentry.ClientOptions{\n\t\tDsn: "${DSN}"`);
    expect(byId.java!.code).toContain(`options.setDsn("${DSN}")`);
    expect(byId.php!.code).toContain(`\\Sentry\\init([\n    'dsn' => '${DSN}'`);
    expect(byId.dotnet!.code).toContain(`options.Dsn = "${DSN}";`);
  });

  it("gives JavaScript that parses", () => {
    for (const setup of setups.filter((s) => s.language === "js")) {
      const file = ts.createSourceFile("setup.mjs", setup.code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
      expect((file as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics, setup.label).toEqual([]);
    }
  });

  it.skipIf(!hasPython())("gives Python that parses", () => {
    const python = setups.find((s) => s.id === "python")!;
    expect(() => execFileSync("python3", ["-c", "import ast, sys; ast.parse(sys.stdin.read())"], { input: python.code })).not.toThrow();
  });
});

describe("allowed origins", () => {
  it("are normalised as browsers send Origin: lower case, no default port, no trailing slash", () => {
    expect(normalizeOrigin("HTTPS://App.Example.com:443/")).toBe("https://app.example.com");
    expect(normalizeOrigin("http://localhost:80")).toBe("http://localhost");
    expect(normalizeOrigin("http://localhost:5173")).toBe("http://localhost:5173");
    expect(normalizeOrigin("https://bücher.example")).toBe(null); // not ASCII: browsers send punycode, write that
    expect(normalizeOrigin("https://xn--bcher-kva.example")).toBe("https://xn--bcher-kva.example");
    expect(normalizeOrigin("capacitor://localhost")).toBe("capacitor://localhost");
    expect(normalizeOrigin("http://[::1]:3000")).toBe("http://[::1]:3000");
    for (const bad of ["app.example", "https://app.example/x", "https://a.example?x", "https://u:p@a.example", "https://a.example:70000", "null", "*.example.com", "https://", "javascript:alert(1)"]) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it("are a list of origins or * alone, deduplicated, at most 50", () => {
    expect(allowedOriginsSchema.parse(["https://a.example", "HTTPS://A.example/"])).toEqual(["https://a.example"]);
    expect(allowedOriginsSchema.parse(["*"])).toEqual(["*"]);
    // The API takes a list: an element with whitespace is refused, not trimmed or split (the form splits its text first).
    expect(allowedOriginsSchema.safeParse([" * "]).success).toBe(false);
    expect(allowedOriginsSchema.parse([])).toEqual([]);
    expect(allowedOriginsSchema.safeParse(["*", "https://a.example"]).success).toBe(false);
    expect(allowedOriginsSchema.safeParse(Array.from({ length: 51 }, (_, i) => `https://a${i}.example`)).success).toBe(false);
    expect(splitOriginsText(" https://a.example\n\nhttps://b.example, https://c.example ")).toEqual(["https://a.example", "https://b.example", "https://c.example"]);
  });
});
