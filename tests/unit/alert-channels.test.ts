import { createHmac, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { CHANNELS, targetLabel } from "@/lib/alerts/channels";
import { discordBody } from "@/lib/alerts/channels/discord";
import { alertMail } from "@/lib/alerts/channels/email";
import { slackBody } from "@/lib/alerts/channels/slack";
import type { Notification } from "@/lib/alerts/messages";
import { leaseMs, MAIL_TIMEOUT_MS, sendDeadlineMs } from "@/lib/alerts/queue";
import { signatureHeaders } from "@/lib/alerts/signing";
import { configuredOrigin } from "@/lib/auth/public-origin";
import { WebhookFormat } from "@/lib/db/generated/kysely-enums";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { verifySignature, verifyTimestampedSignature } from "@/tests/helpers/webhook-receiver";

const phishing = "Reset your password at https://evil.example/login or mail help@evil.example";

const notification: Notification = {
  deliveryId: "00000000-0000-4000-8000-000000000002",
  trigger: "new_issue",
  test: false,
  project: { id: "p1", name: "shop.example.com", url: "https://telltale.example/projects/p1" },
  issue: {
    id: "i1",
    title: phishing,
    level: "error",
    count: 3,
    firstSeen: "2026-11-27T05:05:33.107Z",
    lastSeen: "2026-11-27T05:37:27.194Z",
    url: "https://telltale.example/projects/p1/issues/i1",
  },
  spike: null,
  digest: null,
  paused: null,
  url: "https://telltale.example/projects/p1/issues/i1",
  sentAt: new Date("2026-11-27T05:38:35Z"),
};

/** Every string in a body, whatever the nesting. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

/** What a chat client would turn into a link or a preview: a scheme, a host name, an address. */
const LINKABLE = /(https?:\/\/|evil\.example|shop\.example\.com|@evil)/;

describe("Slack and Discord bodies make no link from client text", () => {
  it("Slack: neither the top-level text nor the blocks carry the URL, the host or the address; link previews are off", () => {
    const body = slackBody(notification);
    expect(body.text).not.toMatch(LINKABLE);
    for (const text of strings(body.blocks)) expect(text.replace(/<https:\/\/telltale\.example[^|>]*\|/g, "<|")).not.toMatch(LINKABLE);
    expect(body).toMatchObject({ unfurl_links: false, unfurl_media: false });
    // Our own link stays a link.
    expect(JSON.stringify(body.blocks)).toContain("<https://telltale.example/projects/p1/issues/i1|");
  });

  it("Discord: content, embed title, description and footer carry no URL of the client's; the embed's url is ours", () => {
    const body = discordBody(notification);
    const [embed] = body.embeds;
    for (const text of [body.content, embed!.title, embed!.description ?? "", embed!.footer.text]) expect(text).not.toMatch(LINKABLE);
    expect(embed!.url).toBe(notification.url);
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it("Discord: Markdown and mentions in a client's title are escaped in the embed title and the content", () => {
    const title = "**urgent** [click](x) `rm` ~~no~~ ||spoiler|| @everyone <@&123> # heading";
    const body = discordBody({ ...notification, issue: { ...notification.issue!, title } });
    for (const text of [body.embeds[0]!.title, body.content]) {
      expect(text).not.toMatch(/(?<!\\)(\*\*|\[click\]|`|~~|\|\||@everyone)/);
      expect(text).toContain("\\*\\*urgent\\*\\*");
    }
  });

  it("the mail names the issue once, in its subject (the plain text does not repeat it), and quotes it inert", () => {
    const mail = alertMail(notification, "oncall@example.com");
    expect(mail.subject).toContain("Reset your password");
    expect(mail.text.split("\n").filter((line) => line.includes("Reset your password"))).toHaveLength(0);
    expect(mail.subject).not.toMatch(/https?:\/\/evil|evil\.example/);
    expect(mail.text).not.toMatch(/https?:\/\/evil|evil\.example/);
  });
});

describe("the channel registry", () => {
  it("has a channel for email and every webhook format of the schema", () => {
    expect(Object.keys(CHANNELS).sort()).toEqual(["email", ...Object.values(WebhookFormat)].sort());
    expect(CHANNELS.email.transport).toBe("email");
    for (const format of Object.values(WebhookFormat)) expect(CHANNELS[format].transport).toBe("webhook");
    expect(targetLabel("slack", { url: "https://hooks.slack.com/services/T/B/X" })).toBe("slack webhook to hooks.slack.com");
    expect(targetLabel("email", { recipients: ["a@example.com", "b@example.com"] })).toBe("email to a@example.com, b@example.com");
  });
});

describe("webhook signatures", () => {
  const secret = "whsec_test";
  const body = JSON.stringify({ id: "d1", trigger: "new_issue" });
  const sentAt = new Date("2026-11-27T05:38:35Z");
  const nowS = Math.floor(sentAt.getTime() / 1000);
  const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

  it("X-Telltale-Signature-V1 signs the timestamp with the body; another timestamp or body fails", () => {
    const headers = lower(signatureHeaders(secret, body, sentAt));
    expect(headers["x-telltale-timestamp"]).toBe(String(nowS));
    expect(headers["x-telltale-signature-v1"]).toBe(`t=${nowS},v1=${createHmac("sha256", secret).update(`${nowS}.${body}`).digest("hex")}`);
    expect(verifyTimestampedSignature(secret, body, headers, nowS)).toBe(true);
    // A replay under a fresh timestamp: the signature no longer matches.
    expect(verifyTimestampedSignature(secret, body, { ...headers, "x-telltale-timestamp": String(nowS + 600) }, nowS + 600)).toBe(false);
    expect(verifyTimestampedSignature(secret, `${body} `, headers, nowS)).toBe(false);
    // A stale delivery is refused by the receiver's tolerance.
    expect(verifyTimestampedSignature(secret, body, headers, nowS + 3_600)).toBe(false);
  });

  it("the old X-Telltale-Signature (sha256 of the body) is still sent, for receivers not yet moved", () => {
    const headers = lower(signatureHeaders(secret, body, sentAt));
    expect(headers["x-telltale-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(secret, body, headers["x-telltale-signature"])).toBe(true);
  });
});

describe("the verification snippet of docs/alerts.md", () => {
  it("accepts a delivery as sent, refuses a changed body, timestamp or stale one", () => {
    const doc = fs.readFileSync("docs/alerts.md", "utf8");
    const code = /function verify\(raw, header\) \{[\s\S]*?\n\}/.exec(doc)![0];
    const secret = "whsec_docs";
    const verify = new Function("createHmac", "timingSafeEqual", "secret", "TOLERANCE_S", `${code}\nreturn verify;`)(createHmac, timingSafeEqual, secret, 300) as (
      raw: Buffer,
      header: string | undefined,
    ) => boolean;
    const body = JSON.stringify({ id: "d2", trigger: "spike" });
    const header = (at: Date, text = body) => signatureHeaders(secret, text, at)["X-Telltale-Signature-V1"];
    expect(verify(Buffer.from(body), header(new Date()))).toBe(true);
    expect(verify(Buffer.from(`${body} `), header(new Date()))).toBe(false);
    expect(verify(Buffer.from(body), header(new Date(Date.now() - 3_600_000)))).toBe(false);
    expect(verify(Buffer.from(body), header(new Date())!.replace(/^t=\d+/, `t=${Math.floor(Date.now() / 1000) + 1}`))).toBe(false);
    expect(verify(Buffer.from(body), undefined)).toBe(false);
  });
});

describe("links in notifications", () => {
  it("point at AUTH_URL's origin, else this server on localhost (the one public origin)", () => {
    try {
      stubEnv("AUTH_URL", "https://telltale.example/api/auth");
      expect(configuredOrigin()).toBe("https://telltale.example");
      stubEnv("AUTH_URL", undefined);
      stubEnv("PORT", "4123");
      expect(configuredOrigin()).toBe("http://localhost:4123");
    } finally {
      unstubEnvs();
    }
  });
});

describe("send deadlines", () => {
  it("a mail's and a webhook's deadline are shorter than the claim's lease, so no second copy is sent while the first is in flight", () => {
    expect(MAIL_TIMEOUT_MS).toBeLessThan(leaseMs());
    expect(sendDeadlineMs("webhook")).toBeLessThan(leaseMs());
  });
});
