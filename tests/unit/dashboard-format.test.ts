import { describe, expect, it } from "vitest";
import { compactNumber, formatCount } from "@/components/number-format";
import { isStackKey, stackLines } from "@/components/stack-lines";

describe("compact numbers (chart axes)", () => {
  it("keeps small numbers and shortens large ones", () => {
    expect(compactNumber(0)).toBe("0");
    expect(compactNumber(999)).toBe("999");
    expect(compactNumber(1000)).toBe("1k");
    expect(compactNumber(1234)).toBe("1.2k");
    expect(compactNumber(12_345)).toBe("12k");
    expect(compactNumber(999_499)).toBe("999k");
    expect(compactNumber(999_500)).toBe("1M");
    expect(compactNumber(1_500_000)).toBe("1.5M");
    expect(compactNumber(-2500)).toBe("-2.5k");
    expect(compactNumber(2.5)).toBe("2.5");
  });

  it("groups thousands in full counts", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
  });
});

describe("stack traces", () => {
  it("recognises stack fields by name", () => {
    expect(isStackKey("stack")).toBe(true);
    expect(isStackKey("stackTrace")).toBe(true);
    expect(isStackKey("backtrace")).toBe(true);
    expect(isStackKey("stacked")).toBe(false);
    expect(isStackKey("message")).toBe(false);
  });

  it("emphasises the error and tells the app's frames from libraries'", () => {
    const trace = [
      "TypeError: Cannot read properties of undefined (reading 'id')",
      "    at CheckoutForm (/app/src/checkout.tsx:12:5)",
      "    at renderWithHooks (/app/node_modules/react-dom/cjs/react-dom.development.js:14985:18)",
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
      "",
    ].join("\n");
    expect(stackLines(trace)).toEqual([
      { text: "TypeError: Cannot read properties of undefined (reading 'id')", kind: "head" },
      { text: "    at CheckoutForm (/app/src/checkout.tsx:12:5)", kind: "app" },
      { text: "    at renderWithHooks (/app/node_modules/react-dom/cjs/react-dom.development.js:14985:18)", kind: "library" },
      { text: "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)", kind: "library" },
    ]);
  });

  it("reads Python tracebacks (error last) and arrays of frames", () => {
    const python = stackLines(
      'Traceback (most recent call last):\r\n  File "/srv/app/views.py", line 8, in charge\r\n    stripe.Charge.create()\r\n  File "/usr/lib/python3/site-packages/stripe/api.py", line 3, in create\r\nTimeoutError: timed out',
    );
    expect(python.map((l) => l.kind)).toEqual(["head", "app", "other", "library", "head"]);
    expect(stackLines(["Error: boom", "at main (/srv/index.js:1:1)"]).map((l) => l.kind)).toEqual(["head", "app"]);
  });
});
