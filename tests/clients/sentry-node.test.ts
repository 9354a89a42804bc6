/**
 * @sentry/node in a small TypeScript app (tests/fixtures/clients/node-app, run
 * with `node --import tsx`), pointed at the production server by its DSN
 * alone: exceptions with causes, two bugs whose messages share a shape,
 * messages at every level, breadcrumbs, release and environment, a structured
 * log, an uncaught exception, and what the SDK does after a 429.
 */
import { afterAll, describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { byMessage, clientProject, envelopeItemTypes, envelopeText, FIXTURES, lastJsonLine, runNodeProgram, serverUrl, startProxy, storedEvents, waitForEvents, type Proxy } from "@/tests/clients/helpers";

const APP = `${FIXTURES}/node-app`;

type Frame = { function?: string; filename?: string; abs_path?: string; lineno?: number; in_app?: boolean; context_line?: string };
type ExceptionValue = { type: string; value: string; stacktrace?: { frames: Frame[] }; mechanism?: { type?: string; handled?: boolean } };
const exceptionValues = (context: Record<string, any>): ExceptionValue[] => context.exception?.values ?? [];
const framesOf = (value: ExceptionValue | undefined) => value?.stacktrace?.frames ?? [];

describe("@sentry/node 11.12.0, changing only the DSN", () => {
  it("stores exceptions with their cause chain and frames, levels mapped, breadcrumbs, release, environment, tags, user, a log and an uncaught exception; two bugs of one message shape are two issues", async () => {
    const project = await clientProject("sentry-node");
    const run = await runNodeProgram(`${APP}/app.ts`, { SENTRY_DSN: project.dsn }, { cwd: APP });
    // What the application saw: every send answered (flush resolved true), then its own crash.
    const seen = lastJsonLine<{ flushed: boolean; ids: Record<string, string | string[]> }>(run);
    expect(seen.flushed).toBe(true);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/RangeError: Invalid array length/);

    // 10 captures, one log, the uncaught exception; nothing more.
    const events = await waitForEvents(project.id, 12);
    expect(events).toHaveLength(12);
    const capturedIds = Object.values(seen.ids).flat();
    const storedIds = events.map((e) => e.context.sentry?.event_id).filter(Boolean);
    expect(storedIds).toEqual(expect.arrayContaining(capturedIds));

    // The exception with a cause: the chain innermost first, frames with source lines.
    const checkout = byMessage(events, "Error: Checkout of ord_1 failed");
    expect(checkout).toMatchObject({ level: "error", release: "shop@1.4.2", environment: "staging", tags: { region: "eu-west-1" }, user: { id: "user-42", email: "ada@example.com" } });
    expect(checkout.context.sentry.event_id).toBe(seen.ids.checkout);
    const chain = exceptionValues(checkout.context);
    expect(chain.map((v) => v.type)).toEqual(["SyntaxError", "Error"]);
    expect(chain[1]!.value).toBe("Checkout of ord_1 failed");
    expect(chain[0]!.mechanism).toMatchObject({ type: "chained" });
    const checkoutFrames = framesOf(chain[1]);
    const inApp = checkoutFrames.filter((f) => f.in_app);
    expect(inApp.map((f) => f.filename?.split("/").pop())).toEqual(expect.arrayContaining(["orders.ts", "app.ts"]));
    const thrower = checkoutFrames.find((f) => f.function === "checkout");
    expect(thrower).toMatchObject({ in_app: true, lineno: expect.any(Number) });
    // The SDK's ContextLines read the source: the line that threw.
    expect(thrower!.context_line).toContain("throw new Error(`Checkout of ${orderId} failed`, { cause })");
    expect(framesOf(chain[0]).some((f) => f.function === "parseOrder")).toBe(true);
    const crumbs = (checkout.context.breadcrumbs?.values ?? []) as { category?: string; message?: string; data?: unknown }[];
    expect(crumbs).toEqual(expect.arrayContaining([
      expect.objectContaining({ category: "navigation", message: "opened /cart" }),
      expect.objectContaining({ category: "cart", message: "added SKU-1", data: { quantity: 2 } }),
    ]));

    // Two bugs, one message shape: the cart bug (twice) is one issue, the list bug another.
    const cart = events.filter((e) => e.message === "TypeError: Cannot read properties of undefined (reading 'price')");
    const list = byMessage(events, "TypeError: Cannot read properties of undefined (reading 'map')");
    expect(cart).toHaveLength(2);
    expect(cart[0]!.issueId).toBeTruthy();
    expect(cart[1]!.issueId).toBe(cart[0]!.issueId);
    expect(list.issueId).toBeTruthy();
    expect(list.issueId).not.toBe(cart[0]!.issueId);
    expect(framesOf(exceptionValues(cart[0]!.context).at(-1)).some((f) => f.in_app && f.filename?.endsWith("/cart.ts"))).toBe(true);
    expect(framesOf(exceptionValues(list.context).at(-1)).some((f) => f.in_app && f.function === "OrderList" && f.filename?.endsWith("/list.tsx"))).toBe(true);
    const issues = await prisma.issue.findMany({ where: { projectId: project.id, id: { in: [cart[0]!.issueId!, list.issueId!] } }, select: { id: true, count: true } });
    expect(Object.fromEntries(issues.map((i) => [i.id, Number(i.count)]))).toEqual({ [cart[0]!.issueId!]: 2, [list.issueId!]: 1 });

    // Sentry's levels -> Telltale's, the original kept.
    const levels = ["fatal", "error", "warning", "log", "info", "debug"].map((level) => {
      const event = byMessage(events, `Stock check finished (${level})`);
      return [level, event.level, event.context.sentry.level];
    });
    expect(levels).toEqual([
      ["fatal", "error", "fatal"],
      ["error", "error", "error"],
      ["warning", "warn", "warning"],
      ["log", "info", "log"],
      ["info", "info", "info"],
      ["debug", "info", "debug"],
    ]);

    // Sentry.logger (enableLogs): an event at its level.
    expect(byMessage(events, "Cache miss rate high")).toMatchObject({ level: "warn", release: "shop@1.4.2", environment: "staging" });

    // The uncaught exception: reported before the process exited, as unhandled.
    const crash = byMessage(events, "RangeError: Invalid array length");
    expect(crash.level).toBe("error");
    expect(crash.context.sentry.level).toBe("fatal");
    const crashValue = exceptionValues(crash.context).at(-1)!;
    expect(crashValue.mechanism).toMatchObject({ handled: false });
    expect(framesOf(crashValue).find((f) => f.function === "buildReport")).toMatchObject({ in_app: true, filename: expect.stringMatching(/\/report\.ts$/) });
  });

  describe("after a 429", () => {
    let proxy: Proxy | undefined;
    afterAll(() => proxy?.close());

    it("the SDK drops the refused event and holds back what it captures until Retry-After has passed (it does not resend); then it sends again, and nothing is stored twice", async () => {
      const project = await clientProject("sentry-node-429");
      const LIMIT_SECONDS = 1;
      let refused = false;
      // The first event is refused as Telltale refuses one past its limits;
      // later events are forwarded twice (a retrying load balancer): the
      // event_id keeps the second from being stored.
      proxy = await startProxy(serverUrl(), (request) => {
        const types = envelopeItemTypes({ ...request, status: 0 });
        if (!types.includes("event")) return null;
        if (!refused) {
          refused = true;
          return {
            status: 429,
            headers: { "retry-after": String(LIMIT_SECONDS), "x-sentry-rate-limits": `${LIMIT_SECONDS}::key:key_quota` },
            body: JSON.stringify({ type: "about:blank", title: "Too Many Requests", status: 429 }),
          };
        }
        return { forwardTimes: 2 };
      });
      const dsn = project.dsn.replace(new URL(serverUrl()).host, new URL(proxy.url).host);
      const run = await runNodeProgram(`${APP}/rate-limited.ts`, { SENTRY_DSN: dsn, LIMIT_SECONDS: String(LIMIT_SECONDS) }, { cwd: APP });
      expect(run.code, run.stderr).toBe(0);
      const seen = lastJsonLine<{ flushes: boolean[]; ids: string[] }>(run);
      // Each flush resolves true: a 429 is an answer, and a held-back event is not a pending send.
      expect(seen.flushes).toEqual([true, true, true]);

      // What reached the wire: the first event (refused) and the third (sent); the second never left the SDK.
      const eventRequests = proxy.requests.filter((r) => envelopeItemTypes(r).includes("event"));
      expect(eventRequests.map((r) => r.status)).toEqual([429, 200]);
      expect(envelopeText(eventRequests[0]!)).toContain(seen.ids[0]);
      expect(envelopeText(eventRequests[1]!)).toContain(seen.ids[2]);
      expect(proxy.requests.some((r) => envelopeText(r).includes(seen.ids[1]!))).toBe(false);
      // The refused event was never sent again.
      expect(proxy.requests.filter((r) => envelopeText(r).includes(seen.ids[0]!))).toHaveLength(1);

      const events = await waitForEvents(project.id, 1);
      expect(events.map((e) => [e.message, e.context.sentry.event_id])).toEqual([["Payment provider timed out (after the limit)", seen.ids[2]]]);
      // The double delivery stored nothing more (checked again after both answers were in).
      expect(await storedEvents(project.id)).toHaveLength(1);
    });
  });
});
