/**
 * POST /api/events/batch in the three forms log shippers send: the
 * documented `{"events": [...]}`, a bare JSON array (winston's batch mode)
 * and NDJSON (one event per line, as Vector, Fluent Bit and most shippers
 * write). Same limits and all-or-nothing rule; problems named alike.
 */
import { describe, expect, it } from "vitest";
import { countEvents, makeProject, sendBatch } from "@/tests/helpers/ingest";

const ndjson = { "content-type": "application/x-ndjson" };

describe("batch forms", () => {
  it("stores a bare array of events", async () => {
    const p = await makeProject("bare-array");
    const answer = await sendBatch(p.apiKey, [
      { level: "info", message: "one", projectId: p.id },
      { level: "warn", message: "two", projectId: p.id, tags: { shipper: "winston" } },
    ]);
    expect(answer.status).toBe(201);
    expect(answer.body.ids).toHaveLength(2);
    expect(await countEvents(p.id)).toBe(2);
  });

  it("stores NDJSON, skipping blank lines and a trailing newline", async () => {
    const p = await makeProject("ndjson");
    const lines = [{ level: "error", message: "a", projectId: p.id }, { level: "info", message: "b", projectId: p.id }].map((e) => JSON.stringify(e));
    const answer = await sendBatch(p.apiKey, null, { headers: ndjson, raw: `${lines[0]}\n\n${lines[1]}\n` });
    expect(answer.status).toBe(201);
    expect(answer.body.ids).toHaveLength(2);
    expect(await countEvents(p.id)).toBe(2);
  });

  it("names problems events.<i>.<field> in every form and stores nothing", async () => {
    const p = await makeProject("forms-bad");
    const events = [{ level: "info", message: "fine", projectId: p.id }, { level: "fatal", message: "bad", projectId: p.id }];
    const bare = await sendBatch(p.apiKey, events);
    const lines = await sendBatch(p.apiKey, null, { headers: ndjson, raw: events.map((e) => JSON.stringify(e)).join("\n") });
    for (const answer of [bare, lines]) {
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([{ path: "events.1.level", message: "Must be one of error, warn, info." }]);
    }
    // A duplicate key, found by the strict parser, is named by its line too.
    const dup = await sendBatch(p.apiKey, null, { headers: ndjson, raw: `{"level":"info","message":"x","projectId":"${p.id}"}\n{"level":"info","level":"warn","message":"y","projectId":"${p.id}"}` });
    expect(dup.status).toBe(400);
    expect(dup.body.errors[0].path).toBe("events.1.level");
    const notJson = await sendBatch(p.apiKey, null, { headers: ndjson, raw: `{"level":"info","message":"x","projectId":"${p.id}"}\n{oops` });
    expect([notJson.status, notJson.body.code]).toEqual([400, "invalid_json"]);
    expect(notJson.body.detail).toMatch(/Line 2/);
    expect(await countEvents(p.id)).toBe(0);
  });

  it("keeps the batch limits: at most 1,000 events whatever the form; the single-event route still wants JSON", async () => {
    const p = await makeProject("forms-limits");
    const many = Array.from({ length: 1_001 }, () => JSON.stringify({ level: "info", message: "x", projectId: p.id })).join("\n");
    const answer = await sendBatch(p.apiKey, null, { headers: ndjson, raw: many });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toContainEqual({ path: "events", message: "Must contain at most 1000 events." });
    const { sendEvent } = await import("@/tests/helpers/ingest");
    expect((await sendEvent(p.apiKey, null, { headers: ndjson, raw: JSON.stringify({ level: "info", message: "x", projectId: p.id }) })).status).toBe(415);
    expect(await countEvents(p.id)).toBe(0);
  });
});
