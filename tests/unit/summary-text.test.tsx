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

  it("keeps the digest's lines: a single line break is a break, a blank line a new block", () => {
    const html = renderToStaticMarkup(
      <SummaryText text={"**Window:** the last hour.\n**Totals:** 5 events.\n\n**Top issues:**\n1. **error** `Disk full`\n   5 events, ongoing\n   per 5 minutes: `▁▂█`"} />,
    );
    expect(html).toMatch(/the last hour\.<br\/?>\s*<strong>Totals:<\/strong>/);
    expect(html).toMatch(/<li><strong>error<\/strong> <code[^>]*>Disk full<\/code><br\/?>\s*5 events, ongoing<br\/?>\s*per 5 minutes/);
    expect(html.match(/<p>/g)).toHaveLength(2);
  });
});
