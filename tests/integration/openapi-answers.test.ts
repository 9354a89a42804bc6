/**
 * Real answers of the route handlers, on the test database, checked against
 * the OpenAPI document (GET /api/openapi.json): each status must be listed
 * for its operation with the answer's content type, and the body must match
 * that schema (strict Ajv, formats checked). Successes and problems alike.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as sentryStore from "@/app/api/[projectNumber]/store/route";
import * as summarizeRoute from "@/app/api/ai/summarize/route";
import * as eventsRoute from "@/app/api/events/route";
import * as liveRoute from "@/app/api/health/live/route";
import * as readyRoute from "@/app/api/health/ready/route";
import * as myInvitationsRoute from "@/app/api/invitations/route";
import * as openApiRoute from "@/app/api/openapi.json/route";
import * as alertDeliveriesRoute from "@/app/api/projects/[id]/alerts/deliveries/route";
import * as alertsRoute from "@/app/api/projects/[id]/alerts/route";
import * as eventRoute from "@/app/api/projects/[id]/events/[eventId]/route";
import * as projectEventsRoute from "@/app/api/projects/[id]/events/route";
import * as invitationsRoute from "@/app/api/projects/[id]/invitations/route";
import * as issueRoute from "@/app/api/projects/[id]/issues/[issueId]/route";
import * as issuesRoute from "@/app/api/projects/[id]/issues/route";
import * as keyRoute from "@/app/api/projects/[id]/key/route";
import * as memberRoute from "@/app/api/projects/[id]/members/[userId]/route";
import * as membersRoute from "@/app/api/projects/[id]/members/route";
import * as projectRoute from "@/app/api/projects/[id]/route";
import * as projectsRoute from "@/app/api/projects/route";
import * as otlpRoute from "@/app/v1/logs/route";
import { prisma } from "@/lib/db/client";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { readOrCreatePublicKey } from "@/lib/keys/service";
import { answerProblems } from "@/tests/helpers/openapi";
import { makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";
import { apiRequest, callRoute, createTeam, uniqueEmail } from "@/tests/helpers/session";

type Called = { status: number; body: unknown; res: Response };

/** The answer matches the document's operation, and has the status the test expects (so a problem is not taken for a success). */
function expectDocumented(path: string, method: string, answer: Called, status: number) {
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  expect(answerProblems(path, method, { status: answer.status, contentType: answer.res.headers.get("content-type"), body: answer.body }), `${method} ${path} ${status}`).toEqual([]);
}

describe("real answers match the OpenAPI document", () => {
  it("ingest: an event, a batch, OTLP logs with a refused record, a Sentry event, and their problems", async () => {
    const p = await makeProject("openapi-ingest");
    const single = await sendEvent(p.apiKey, { level: "error", message: "TypeError: x is undefined", projectId: p.id });
    expectDocumented("/api/events", "POST", single, 201);
    const replay = await sendEvent(p.apiKey, { level: "info", message: "once", projectId: p.id }, { headers: { "idempotency-key": "k-1" } });
    expectDocumented("/api/events", "POST", replay, 201);

    const invalid = await sendEvent(p.apiKey, { level: "fatal", message: "", projectId: p.id, extra: 1 });
    expectDocumented("/api/events", "POST", invalid, 400);
    expect((invalid.body as { errors: unknown[] }).errors.length).toBeGreaterThan(1);
    expectDocumented("/api/events", "POST", await sendEvent(null, {}), 401);
    const other = await makeProject("openapi-other");
    expectDocumented("/api/events", "POST", await sendEvent(p.apiKey, { level: "info", message: "x", projectId: other.id }), 403);
    expectDocumented("/api/events", "POST", await sendEvent(p.apiKey, null, { raw: "{", headers: {} }), 400);
    const wrongType = await eventsRoute.POST(
      new Request("http://localhost/api/events", { method: "POST", headers: { authorization: `Bearer ${p.apiKey}`, "content-type": "text/plain" }, body: "x" }),
      { params: Promise.resolve({}) },
    );
    expectDocumented("/api/events", "POST", { status: wrongType.status, body: await wrongType.json(), res: wrongType }, 415);

    const batch = await sendBatch(p.apiKey, [1, 2].map((n) => ({ level: "warn", message: `slow ${n}`, projectId: p.id })));
    expectDocumented("/api/events/batch", "POST", batch, 201);
    expectDocumented("/api/events/batch", "POST", await sendBatch(p.apiKey, { events: [] }), 400);

    const logs = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "checkout" } }] },
          scopeLogs: [{ logRecords: [{ severityNumber: 17, body: { stringValue: "card declined" } }, { severityNumber: "loud" }] }],
        },
      ],
    };
    const otlp = await otlpRoute.POST(
      new Request("http://localhost/v1/logs", { method: "POST", headers: { authorization: `Bearer ${p.apiKey}`, "content-type": "application/json" }, body: JSON.stringify(logs) }),
      { params: Promise.resolve({}) },
    );
    const otlpBody = await otlp.json();
    expect(otlpBody.partialSuccess.rejectedLogRecords).toBe("1");
    expectDocumented("/v1/logs", "POST", { status: otlp.status, body: otlpBody, res: otlp }, 200);

    const publicKey = (await readOrCreatePublicKey(p.id))!;
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: p.id }, select: { number: true } });
    const sentry = async (body: string) => {
      const request = new Request(`http://localhost/api/${number}/store/?sentry_key=${publicKey}&sentry_version=7`, {
        method: "POST",
        headers: { [CLIENT_ADDRESS_HEADER]: `10.9.${number % 250}.${Math.floor(number / 250) % 250}` },
        body,
      });
      return callRoute(sentryStore.POST, request, { projectNumber: String(number) });
    };
    const eventId = randomUUID().replaceAll("-", "");
    expectDocumented("/api/{projectNumber}/store/", "POST", await sentry(JSON.stringify({ event_id: eventId, level: "error", message: "from Sentry" })), 200);
    expectDocumented("/api/{projectNumber}/store/", "POST", await sentry("{not json"), 400);
  });

  it("management: projects, keys, members, invitations, events, issues, alerts, summary, and their problems", async () => {
    const { owner, member, outsider, project } = await createTeam("openapi");
    const id = project.id;
    const as = (cookie: string, path: string, method = "GET", body?: unknown) => apiRequest(path, { cookie, method, body });

    expectDocumented("/api/projects", "GET", await callRoute(projectsRoute.GET, as(owner.cookie, "/api/projects")), 200);
    expectDocumented("/api/projects", "GET", await callRoute(projectsRoute.GET, apiRequest("/api/projects")), 401);
    expectDocumented("/api/projects", "POST", await callRoute(projectsRoute.POST, as(owner.cookie, "/api/projects", "POST", { name: `openapi-${randomUUID()}` })), 201);
    expectDocumented("/api/projects", "POST", await callRoute(projectsRoute.POST, as(owner.cookie, "/api/projects", "POST", { name: "" })), 400);
    expectDocumented("/api/projects/{id}", "GET", await callRoute(projectRoute.GET, as(member.cookie, `/api/projects/${id}`), { id }), 200);
    expectDocumented("/api/projects/{id}", "GET", await callRoute(projectRoute.GET, as(outsider.cookie, `/api/projects/${id}`), { id }), 404);
    expectDocumented("/api/projects/{id}", "PATCH", await callRoute(projectRoute.PATCH, as(owner.cookie, `/api/projects/${id}`, "PATCH", { name: "renamed" }), { id }), 200);
    expectDocumented("/api/projects/{id}", "PATCH", await callRoute(projectRoute.PATCH, as(member.cookie, `/api/projects/${id}`, "PATCH", { name: "mine" }), { id }), 403);
    const rotated = await callRoute(keyRoute.POST, as(owner.cookie, `/api/projects/${id}/key`, "POST"), { id });
    expectDocumented("/api/projects/{id}/key", "POST", rotated, 200);

    expectDocumented("/api/projects/{id}/members", "GET", await callRoute(membersRoute.GET, as(member.cookie, `/api/projects/${id}/members`), { id }), 200);
    const memberPath = `/api/projects/${id}/members/${member.user.id}`;
    const params = { id, userId: member.user.id };
    expectDocumented("/api/projects/{id}/members/{userId}", "PATCH", await callRoute(memberRoute.PATCH, as(owner.cookie, memberPath, "PATCH", { role: "member" }), params), 200);
    expectDocumented("/api/projects/{id}/members/{userId}", "PATCH", await callRoute(memberRoute.PATCH, as(owner.cookie, memberPath, "PATCH", { role: "boss" }), params), 400);

    const invited = uniqueEmail("openapi-invited");
    expectDocumented(
      "/api/projects/{id}/invitations",
      "POST",
      await callRoute(invitationsRoute.POST, as(owner.cookie, `/api/projects/${id}/invitations`, "POST", { email: invited }), { id }),
      201,
    );
    expectDocumented("/api/projects/{id}/invitations", "GET", await callRoute(invitationsRoute.GET, as(owner.cookie, `/api/projects/${id}/invitations`), { id }), 200);
    expectDocumented("/api/projects/{id}/invitations", "GET", await callRoute(invitationsRoute.GET, as(member.cookie, `/api/projects/${id}/invitations`), { id }), 403);
    expectDocumented("/api/invitations", "GET", await callRoute(myInvitationsRoute.GET, as(owner.cookie, "/api/invitations")), 200);

    const apiKey = (rotated.body as { apiKey: string }).apiKey;
    const sent = await sendEvent(apiKey, { level: "error", message: "Payment failed for order 42", projectId: id, context: { order: 42 } });
    expect(sent.status).toBe(201);
    const eventId = (sent.body as { id: string }).id;
    const events = await callRoute(projectEventsRoute.GET, as(member.cookie, `/api/projects/${id}/events?level=error&limit=10`), { id });
    expectDocumented("/api/projects/{id}/events", "GET", events, 200);
    expect((events.body as { events: unknown[] }).events).toHaveLength(1);
    expectDocumented("/api/projects/{id}/events", "GET", await callRoute(projectEventsRoute.GET, as(member.cookie, `/api/projects/${id}/events?limit=0`), { id }), 400);
    expectDocumented("/api/projects/{id}/events/{eventId}", "GET", await callRoute(eventRoute.GET, as(member.cookie, `/api/projects/${id}/events/${eventId}`), { id, eventId }), 200);

    const issues = await callRoute(issuesRoute.GET, as(member.cookie, `/api/projects/${id}/issues`), { id });
    expectDocumented("/api/projects/{id}/issues", "GET", issues, 200);
    const issueId = (issues.body as { issues: { id: string }[] }).issues[0]!.id;
    const issuePath = `/api/projects/${id}/issues/${issueId}`;
    expectDocumented("/api/projects/{id}/issues/{issueId}", "GET", await callRoute(issueRoute.GET, as(member.cookie, issuePath), { id, issueId }), 200);
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", await callRoute(issueRoute.PATCH, as(member.cookie, issuePath, "PATCH", { status: "resolved" }), { id, issueId }), 200);

    expectDocumented("/api/projects/{id}/alerts", "GET", await callRoute(alertsRoute.GET, as(member.cookie, `/api/projects/${id}/alerts`), { id }), 200);
    const rule = { trigger: "spike", minLevel: "error", spike: { count: 10, minutes: 5 }, channel: { type: "email", userIds: [owner.user.id] } };
    expectDocumented("/api/projects/{id}/alerts", "POST", await callRoute(alertsRoute.POST, as(owner.cookie, `/api/projects/${id}/alerts`, "POST", rule), { id }), 201);
    expectDocumented("/api/projects/{id}/alerts", "POST", await callRoute(alertsRoute.POST, as(owner.cookie, `/api/projects/${id}/alerts`, "POST", { trigger: "spike" }), { id }), 400);
    expectDocumented("/api/projects/{id}/alerts/deliveries", "GET", await callRoute(alertDeliveriesRoute.GET, as(member.cookie, `/api/projects/${id}/alerts/deliveries`), { id }), 200);

    const summary = await callRoute(summarizeRoute.GET, as(member.cookie, `/api/ai/summarize?projectId=${id}`));
    expectDocumented("/api/ai/summarize", "GET", summary, 200);
    expectDocumented("/api/ai/summarize", "GET", await callRoute(summarizeRoute.GET, as(outsider.cookie, `/api/ai/summarize?projectId=${id}`)), 403);
    const withKey = await callRoute(summarizeRoute.GET, apiRequest("/api/ai/summarize", { cookie: member.cookie, headers: { authorization: `Bearer ${apiKey}` } }));
    expectDocumented("/api/ai/summarize", "GET", withKey, 401);
    expect((withKey.body as { code: string }).code).toBe("api_key_not_accepted");
  });

  it("health and the document itself", async () => {
    expectDocumented("/api/health/live", "GET", await callRoute(liveRoute.GET, apiRequest("/api/health/live")), 200);
    expectDocumented("/api/health/ready", "GET", await callRoute(readyRoute.GET, apiRequest("/api/health/ready")), 200);
    expectDocumented("/api/openapi.json", "GET", await callRoute(openApiRoute.GET, apiRequest("/api/openapi.json")), 200);
  });
});
