import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import CheckEmailPage from "@/app/signin/check-email/page";
import { AlertDeliveryLog } from "@/components/alert-delivery-log";
import type { AlertDeliveryView } from "@/lib/alerts/deliveries";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";

afterEach(unstubEnvs);

describe("the check-email page", () => {
  it("in development without EMAIL_SERVER, says the link is in the server's log", () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "development");
    const html = renderToStaticMarkup(CheckEmailPage());
    expect(html).toContain("npm run dev");
    expect(html).toContain("[telltale] DEV SIGN-IN LINK");
    expect(html).not.toContain("on its way to your inbox");
  });

  it("with a mail server, sends the reader to their inbox", () => {
    stubEnv("EMAIL_SERVER", "smtp://127.0.0.1:2525");
    const html = renderToStaticMarkup(CheckEmailPage());
    expect(html).toContain("on its way to your inbox");
    expect(html).not.toContain("DEV SIGN-IN LINK");
  });
});

describe("the delivery log", () => {
  const logged: AlertDeliveryView = {
    id: "d1",
    ruleId: "r1",
    kind: "new_issue",
    issue: { id: "i1", title: "Inventory sync failed" },
    channel: "email to ada@example.com",
    status: "logged",
    answer: "logged (development): EMAIL_SERVER is not set, so the mail was printed to the server log",
    attempts: 1,
    createdAt: "2026-11-27T05:38:35.000Z",
    lastAttemptAt: "2026-11-27T05:38:35.000Z",
    sentAt: "2026-11-27T05:38:35.000Z",
    nextAttemptAt: null,
    detail: null,
  };

  it("shows a mail printed in development as `logged (development)`, not in red as failed", () => {
    const html = renderToStaticMarkup(<AlertDeliveryLog projectId="p1" deliveries={[logged]} renderedAt={Date.parse("2026-11-27T05:40:00Z")} />);
    expect(html).toContain("logged (development)");
    expect(html).not.toContain(">failed<");
    expect(html).not.toContain("bg-red-100");
  });

  it("names a paused-webhook notice and why", () => {
    const notice: AlertDeliveryView = { ...logged, kind: "webhook_paused", issue: null, status: "sent", detail: { failures: 10 } };
    const html = renderToStaticMarkup(<AlertDeliveryLog projectId="p1" deliveries={[notice]} renderedAt={Date.parse("2026-11-27T05:40:00Z")} />);
    expect(html).toContain("Webhook paused");
    expect(html).toContain("after 10 failed attempts in a row");
  });
});
