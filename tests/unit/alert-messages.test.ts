import { describe, expect, it } from "vitest";
import { discordBody } from "@/lib/alerts/channels/discord";
import { alertMail } from "@/lib/alerts/channels/email";
import { slackBody } from "@/lib/alerts/channels/slack";
import { genericBody } from "@/lib/alerts/channels/webhook";
import type { Notification } from "@/lib/alerts/messages";

const base: Notification = {
  deliveryId: "00000000-0000-4000-8000-000000000001",
  trigger: "spike",
  test: false,
  project: { id: "p1", name: "shop-api", url: "https://telltale.example/projects/p1" },
  issue: null,
  spike: { observed: 59, count: 50, minutes: 5, scope: "project" },
  digest: null,
  paused: null,
  url: "https://telltale.example/projects/p1",
  sentAt: new Date("2026-11-27T05:38:35Z"),
};

const issue = {
  id: "i1",
  title: "Payment failed for order <id>",
  level: "error" as const,
  count: 61,
  firstSeen: "2026-11-27T05:05:33.107Z",
  lastSeen: "2026-11-27T05:37:27.194Z",
  url: "https://telltale.example/projects/p1/issues/i1",
};

describe("times for people", () => {
  it("mail, Slack and Discord write first and last seen in UTC to the second; the JSON body keeps ISO", () => {
    const n: Notification = { ...base, trigger: "new_issue", spike: null, issue, url: issue.url };
    const facts = "error · 61 events · first seen 2026-11-27 05:05:33 UTC · last seen 2026-11-27 05:37:27 UTC";
    expect(alertMail(n, "oncall@example.com").text).toContain(facts);
    expect(JSON.stringify(slackBody(n).blocks)).toContain(facts);
    expect(discordBody(n).embeds[0]!.fields).toContainEqual({ name: "First seen", value: "2026-11-27 05:05:33 UTC", inline: false });
    expect(genericBody(n).issue).toMatchObject({ firstSeen: "2026-11-27T05:05:33.107Z", lastSeen: "2026-11-27T05:37:27.194Z" });
  });
});

describe("spike notifications say what the rule asked for, in every channel", () => {
  it("a project spike: the threshold and scope reach mail, Slack and Discord", () => {
    const line = "Threshold: 50 events in 5 min (the whole project).";
    expect(alertMail(base, "oncall@example.com").text).toContain(line);
    expect(JSON.stringify(slackBody(base).blocks)).toContain(line);
    const embed = discordBody(base).embeds[0]!;
    expect(embed.description).toBe(line);
    expect(discordBody(base).content).toBe('Spike in "shop\\-api": 59 events in 5 min across the project');
  });

  it("an issue spike: the issue's title and the threshold for one issue", () => {
    const n = { ...base, issue, spike: { observed: 12, count: 10, minutes: 1, scope: "issue" as const } };
    expect(discordBody(n).embeds[0]!.description).toBe("Payment failed for order <id\\>\nThreshold: 10 events in 1 min (one issue).");
    expect(JSON.stringify(slackBody(n).blocks)).toContain("Threshold: 10 events in 1 min (one issue).");
    // A rule of one event per minute reads as such, and large thresholds keep their separators.
    expect(alertMail({ ...n, spike: { ...n.spike, count: 1 } }, "a@example.com").text).toContain("Threshold: 1 event in 1 min (one issue).");
    expect(alertMail({ ...n, spike: { ...n.spike, count: 2500 } }, "a@example.com").text).toContain("Threshold: 2,500 events in 1 min (one issue).");
  });

  it("Discord: an embed with nothing to describe has no description field, not an empty one", () => {
    const n: Notification = { ...base, trigger: "new_issue", test: true, spike: null };
    expect(discordBody(n).embeds[0]).not.toHaveProperty("description");
    expect(discordBody({ ...n, issue }).embeds[0]!.description).toBe("Payment failed for order <id\\>"); // Markdown escaped
  });
});

describe("alert mails: the concrete latest event, its release and frame; the plain text does not repeat the title", () => {
  const latest = { message: "Payment failed for order ord_8f3k2a1c: card_declined (visit https://evil.example/login)", release: "shop@1.8.0", frame: "chargeCard (src/payments/charge.ts:42)" };
  const n: Notification = { ...base, trigger: "new_issue", spike: null, issue: { ...issue, latest }, url: issue.url };

  it("a new issue: the subject names it; the text starts with the latest message as sent, then release, frame and counts", () => {
    const mail = alertMail(n, "oncall@example.com");
    expect(mail.subject).toBe('[Telltale] New issue in "shop-api": Payment failed for order <id>');
    // Dots and at signs in client text are look-alikes (linkFree), so no mail client links "charge.ts" or a release.
    const lines = mail.text.replace(/\u2024/g, ".").replace(/\uff20/g, "@").split("\n");
    expect(lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^Latest event: Payment failed for order ord_8f3k2a1c: card_declined \(visit /),
      "Release: shop@1.8.0",
      "In your code: chargeCard (src/payments/charge.ts:42)",
      "error · 61 events · first seen 2026-11-27 05:05:33 UTC · last seen 2026-11-27 05:37:27 UTC",
    ]);
    expect(mail.text).not.toContain("Payment failed for order <id>");
    expect(mail.text).not.toContain("New issue in");
    // The client's text stays inert: no link but ours.
    expect(mail.text).not.toMatch(/https?:\/\/evil|evil\.example/);
  });

  it("a multi-line latest message gives its first line", () => {
    const mail = alertMail({ ...n, issue: { ...issue, latest: { ...latest, message: "TypeError: x is undefined\n    at cart (src/cart.ts:3:1)" } } }, "a@example.com");
    expect(mail.text.split("\n")[0]).toBe("Latest event: TypeError: x is undefined");
  });

  it("a latest message equal to the title is not said twice; no release or frame, no line", () => {
    const plain = alertMail({ ...n, issue: { ...issue, latest: { message: issue.title, release: null, frame: null } } }, "a@example.com");
    expect(plain.text.split("\n")[0]).toBe("error · 61 events · first seen 2026-11-27 05:05:33 UTC · last seen 2026-11-27 05:37:27 UTC");
    expect(plain.text).not.toContain("Payment failed for order <id>");
  });

  it("an issue spike: its count in place of the subject's line, the threshold after; a digest or test mail keeps its headline", () => {
    const spike = alertMail({ ...n, trigger: "spike", spike: { observed: 12, count: 10, minutes: 1, scope: "issue" } }, "a@example.com");
    expect(spike.text.split("\n")[0]).toBe("12 events in 1 min.");
    expect(spike.text).toContain("Threshold: 10 events in 1 min (one issue).");
    expect(spike.text).not.toContain("Payment failed for order <id>");
    expect(alertMail(base, "a@example.com").text.split("\n")[0]).toBe('Spike in "shop-api": 59 events in 5 min across the project');
  });
});
