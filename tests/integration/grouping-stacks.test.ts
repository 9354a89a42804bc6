/**
 * Stack-aware grouping through the ingest route: two bugs that share a
 * message shape are two issues, one bug whose message varies is one, and an
 * issue made before stack-aware grouping keeps receiving its events (an
 * upgrade never splits an issue).
 */
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { issueGroupingKey } from "@/lib/grouping/key";
import { newEventRow } from "@/lib/ingest/ingest";
import { storeEventsNow } from "@/lib/ingest/writer";
import { makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

const cartStack = (line: number) => `TypeError: Cannot read properties of undefined (reading 'price')
    at lineTotal (/srv/shop/src/cart.ts:${line}:17)
    at Array.map (<anonymous>)
    at cartTotal (/srv/shop/src/cart.ts:${line + 30}:22)
    at handler (/srv/shop/src/routes/checkout.ts:12:5)
    at Layer.handle (/srv/shop/node_modules/express/lib/router/layer.js:95:5)`;
const listStack = `TypeError: Cannot read properties of undefined (reading 'map')
    at ProductList (/srv/shop/src/list.tsx:41:30)
    at renderWithHooks (/srv/shop/node_modules/react-dom/cjs/react-dom.development.js:16305:18)`;

const issueCount = (projectId: string) => prisma.issue.count({ where: { projectId } });

describe("stack-aware grouping", () => {
  it("splits two bugs that share a message shape, keeps one bug with varying messages and line numbers together", async () => {
    const p = await makeProject("stacks");
    const event = (message: string, stack: string) => ({ level: "error", message, projectId: p.id, context: { stack } });
    const answer = await sendBatch(p.apiKey, {
      events: [
        event("TypeError: Cannot read properties of undefined (reading 'price')", cartStack(88)),
        event("TypeError: Cannot read properties of undefined (reading 'map')", listStack),
        // The same bug after a deploy moved its lines.
        event("TypeError: Cannot read properties of undefined (reading 'price')", cartStack(91)),
      ],
    });
    expect(answer.status).toBe(201);
    const issues = await prisma.issue.findMany({ where: { projectId: p.id }, select: { count: true, title: true }, orderBy: { count: "desc" } });
    expect(issues.map((i) => Number(i.count))).toEqual([2, 1]);
    // One message shape, two issues: the stack tells them apart, and their titles (the messages) read apart.
    expect(issues.map((i) => i.title)).toEqual(["TypeError: Cannot read properties of undefined (reading 'price')", "TypeError: Cannot read properties of undefined (reading 'map')"]);

    // Without a stack, the message template alone groups, as before.
    await sendEvent(p.apiKey, { level: "error", message: "Order 1001 failed", projectId: p.id });
    await sendEvent(p.apiKey, { level: "error", message: "Order 2002 failed", projectId: p.id });
    expect(await issueCount(p.id)).toBe(3);
  });

  it("sends a stack event whose new key has no issue to the issue its message made before the upgrade, so no issue splits", async () => {
    const p = await makeProject("upgrade");
    const message = "TypeError: Cannot read properties of undefined (reading 'price')";
    // An issue as the previous version made it: keyed by the message template, marked as made before stack keys.
    const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: p.id, kind: "secret" }, select: { id: true } });
    const old = newEventRow(
      { level: "error", message, projectId: p.id, context: null, timestamp: null, fingerprint: null, release: null, environment: null, tags: null, user: null },
      key.id,
      new Date(),
    );
    expect(old.issueHash).toBe(issueGroupingKey({ level: "error", message }).hash);
    await storeEventsNow([old]);
    await prisma.issue.updateMany({ where: { projectId: p.id }, data: { preStack: true } });
    const before = await prisma.issue.findFirstOrThrow({ where: { projectId: p.id }, select: { id: true } });

    // Both stacks' events join it: they were one issue before, they stay one.
    expect((await sendEvent(p.apiKey, { level: "error", message, projectId: p.id, context: { stack: cartStack(88) } })).status).toBe(201);
    expect((await sendEvent(p.apiKey, { level: "error", message: "TypeError: Cannot read properties of undefined (reading 'map')", projectId: p.id, context: { stack: listStack } })).status).toBe(201);
    const issues = await prisma.issue.findMany({ where: { projectId: p.id }, select: { id: true, count: true } });
    expect(issues).toEqual([{ id: before.id, count: 3n }]);

    // A message that had no issue before the upgrade gets a stack key's issue of its own.
    await sendEvent(p.apiKey, { level: "error", message: "RangeError: Invalid array length", projectId: p.id, context: { stack: "RangeError: Invalid array length\n    at grow (/srv/shop/src/buffer.ts:3:9)" } });
    expect(await issueCount(p.id)).toBe(2);
  });

  it("keeps an issue made before anonymous functions' source lines counted: their events still join it", async () => {
    const handlerEvent = (projectId: string, value: string, line: string, lineno: number) => ({
      level: "error" as const,
      message: `TypeError: ${value}`,
      projectId,
      context: {
        exception: {
          values: [
            {
              type: "TypeError",
              value,
              stacktrace: {
                frames: [
                  { filename: "/srv/app/node_modules/express/lib/router/layer.js", function: "handle", lineno: 95, in_app: false },
                  { filename: "/srv/app/routes.js", function: "?", lineno, context_line: line, in_app: true },
                ],
              },
            },
          ],
        },
      },
    });
    const cart = (projectId: string) => handlerEvent(projectId, "Cannot read properties of undefined (reading 'price')", "  return item.price;", 4);
    const list = (projectId: string) => handlerEvent(projectId, "Cannot read properties of undefined (reading 'map')", "  return page.map((row) => row.title);", 8);

    // A new project: the two anonymous handlers' bugs are two issues.
    const fresh = await makeProject("handlers-new");
    for (const e of [cart(fresh.id), list(fresh.id)]) expect((await sendEvent(fresh.apiKey, e)).status).toBe(201);
    expect(await issueCount(fresh.id)).toBe(2);

    // An issue as the previous key made it (the handlers' file alone): both keep joining it, no split.
    const p = await makeProject("handlers-upgrade");
    const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: p.id, kind: "secret" }, select: { id: true } });
    const row = newEventRow({ ...cart(p.id), timestamp: null, fingerprint: null, release: null, environment: null, tags: null, user: null }, key.id, new Date());
    expect(row.previousHash).not.toBeNull();
    await storeEventsNow([{ ...row, issueHash: row.previousHash!, previousHash: null }]);
    const before = await prisma.issue.findFirstOrThrow({ where: { projectId: p.id }, select: { id: true } });
    for (const e of [cart(p.id), list(p.id)]) expect((await sendEvent(p.apiKey, e)).status).toBe(201);
    expect(await prisma.issue.findMany({ where: { projectId: p.id }, select: { id: true, count: true } })).toEqual([{ id: before.id, count: 3n }]);
  });

  it("does not send a new stack event into a template issue made after the upgrade", async () => {
    const p = await makeProject("after-upgrade");
    const message = "TypeError: Cannot read properties of undefined (reading 'price')";
    // A stack-less event makes a template issue (not marked pre-stack)...
    await sendEvent(p.apiKey, { level: "error", message, projectId: p.id });
    // ...and a stack event with the same message gets its own.
    await sendEvent(p.apiKey, { level: "error", message, projectId: p.id, context: { stack: cartStack(88) } });
    expect(await issueCount(p.id)).toBe(2);
  });
});
