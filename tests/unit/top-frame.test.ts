import { describe, expect, it } from "vitest";
import { topInAppFrame } from "@/lib/grouping/top-frame";

describe("topInAppFrame", () => {
  it("is the newest in-app frame of the outermost exception of a Sentry event, with its line", () => {
    const context = {
      platform: "node",
      exception: {
        values: [
          {
            type: "Error",
            value: "card_declined",
            stacktrace: {
              frames: [
                { function: "processTicksAndRejections", filename: "node:internal/process/task_queues", lineno: 95, in_app: false },
                { function: "checkout", filename: "src/routes/checkout.ts", lineno: 18, in_app: true },
                { function: "chargeCard", filename: "src/payments/charge.ts", lineno: 42, in_app: true },
                { function: "request", filename: "node_modules/stripe/lib/net.js", lineno: 310, in_app: false },
              ],
            },
          },
        ],
      },
    };
    expect(topInAppFrame(context)).toBe("chargeCard (src/payments/charge.ts:42)");
  });

  it("reads a native stack string, skipping library frames; null without a stack or in-app frame", () => {
    const stack = [
      "TypeError: Cannot read properties of undefined (reading 'price')",
      "    at lineTotal (/srv/app/src/cart.ts:31:17)",
      "    at Array.map (<anonymous>)",
      "    at cartTotal (/srv/app/src/cart.ts:12:9)",
      "    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)",
    ].join("\n");
    expect(topInAppFrame({ stack })).toMatch(/^lineTotal \(.*src\/cart\.ts:31\)$/);
    expect(topInAppFrame({ code: "x" })).toBeNull();
    expect(topInAppFrame(null)).toBeNull();
  });
});
