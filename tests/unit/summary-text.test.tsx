import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SummaryText } from "@/components/summary-text";

describe("SummaryText (a model's answer rendered as safe Markdown)", () => {
  it("renders formatting but no raw HTML, no link and no image", () => {
    const html = renderToStaticMarkup(
      <SummaryText
        text={[
          "**Payments** are failing: `Stripe timeout`.",
          "<script>alert(1)</script><img src=x onerror=alert(2)>",
          "[Click here](javascript:alert(3)) or [docs](https://evil.example/phish)",
          "![tracker](https://evil.example/pixel.png)",
          "- first\n- second",
        ].join("\n\n")}
      />,
    );
    expect(html).toContain("<strong>Payments</strong>");
    expect(html).toContain("<code");
    expect(html).toContain("<li>first</li>");
    expect(html).not.toMatch(/<script|<img|onerror|<a\b|href=|javascript:|evil\.example\/pixel/);
    expect(html).toContain("Click here");
    expect(html).toContain("[image: tracker]");
  });
});
