/**
 * The production server's paths as clients hit them: the Sentry routes with
 * and without the trailing slash answer 200 and never redirect (the SDKs do
 * not follow redirects), and /v1/logs is the API's, not a page behind the
 * sign-in redirect. Each request uses `redirect: "manual"`, so a 3xx shows.
 */
import { describe, expect, it } from "vitest";
import { clientProject, serverUrl, storedEvents } from "@/tests/clients/helpers";

/** A minimal envelope of one event, as an SDK sends it. */
function envelope(eventId: string, message: string): string {
  return [JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }), JSON.stringify({ type: "event" }), JSON.stringify({ event_id: eventId, level: "error", message, platform: "node" })].join("\n");
}

const hexId = (n: number) => n.toString(16).padStart(32, "0");

describe("no redirects on the clients' paths", () => {
  it("POST /api/<n>/envelope and /api/<n>/envelope/, /store and /store/: 200 with the event id, never a 3xx", async () => {
    const project = await clientProject("routes-slash");
    const base = serverUrl();
    const query = `?sentry_version=7&sentry_key=${project.publicKey}&sentry_client=sentry.javascript.node%2F11.12.0`;
    const answers: [string, number, unknown, string | null][] = [];
    let n = 1;
    for (const suffix of ["envelope", "envelope/"]) {
      const id = hexId(n++);
      const res = await fetch(`${base}/api/${project.number}/${suffix}${query}`, { method: "POST", body: envelope(id, `via /${suffix}`), redirect: "manual" });
      answers.push([suffix, res.status, await res.json(), res.headers.get("location")]);
    }
    for (const suffix of ["store", "store/"]) {
      const id = hexId(n++);
      const res = await fetch(`${base}/api/${project.number}/${suffix}${query}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event_id: id, level: "warning", message: `via /${suffix}` }),
        redirect: "manual",
      });
      answers.push([suffix, res.status, await res.json(), res.headers.get("location")]);
    }
    expect(answers).toEqual([
      ["envelope", 200, { id: hexId(1) }, null],
      ["envelope/", 200, { id: hexId(2) }, null],
      ["store", 200, { id: hexId(3) }, null],
      ["store/", 200, { id: hexId(4) }, null],
    ]);
    expect((await storedEvents(project.id)).map((e) => e.message).sort()).toEqual(["via /envelope", "via /envelope/", "via /store", "via /store/"]);
  });

  it("a browser's preflight on either form is answered 204 with CORS headers, not redirected", async () => {
    const project = await clientProject("routes-preflight");
    for (const suffix of ["envelope", "envelope/"]) {
      const res = await fetch(`${serverUrl()}/api/${project.number}/${suffix}`, {
        method: "OPTIONS",
        headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
        redirect: "manual",
      });
      expect([suffix, res.status, res.headers.get("access-control-allow-origin")]).toEqual([suffix, 204, "https://shop.example"]);
      expect(res.headers.get("access-control-allow-methods")).toMatch(/POST/);
    }
  });

  it("POST /v1/logs is the API: a missing key is a 401 problem, not the sign-in page; a valid key with an empty request is 200", async () => {
    const project = await clientProject("routes-otlp");
    const anonymous = await fetch(`${serverUrl()}/v1/logs`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", redirect: "manual" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("location")).toBeNull();
    expect(anonymous.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const empty = await fetch(`${serverUrl()}/v1/logs`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${project.apiKey}` }, body: "{}", redirect: "manual" });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({});
  });
});
