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
import * as issueActivityRoute from "@/app/api/projects/[id]/issues/[issueId]/activity/route";
import * as issueCommentsRoute from "@/app/api/projects/[id]/issues/[issueId]/comments/route";
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
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
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
    expectDocumented("/api/projects/{id}/alerts/deliveries", "GET", await callRoute(alertDeliveriesRoute.GET, as(member.cookie, `/api/projects/${id}/alerts/deliveries?utm_source=x`), { id }), 200);

    const summary = await callRoute(summarizeRoute.GET, as(member.cookie, `/api/ai/summarize?projectId=${id}`));
    expectDocumented("/api/ai/summarize", "GET", summary, 200);
    expectDocumented("/api/ai/summarize", "GET", await callRoute(summarizeRoute.GET, as(outsider.cookie, `/api/ai/summarize?projectId=${id}`)), 403);
    const withKey = await callRoute(summarizeRoute.GET, apiRequest("/api/ai/summarize", { cookie: member.cookie, headers: { authorization: `Bearer ${apiKey}` } }));
    expectDocumented("/api/ai/summarize", "GET", withKey, 401);
    expect((withKey.body as { code: string }).code).toBe("api_key_not_accepted");
  });

  it("triage: issue details with releases, environments, tags and users; bulk and single changes, activity, comments, and their problems", async () => {
    const { owner, member, project } = await createTeam("openapi-triage");
    const other = await createTeam("openapi-triage-other");
    const id = project.id;
    const as = (cookie: string, path: string, method = "GET", body?: unknown) => apiRequest(path, { cookie, method, body });
    const send = (event: Record<string, unknown>) => sendEvent(project.apiKey, { level: "error", projectId: id, ...event });
    const users = [{ id: "u-1", email: "ada@example.test" }, { username: "grace", ip_address: "10.0.0.7" }];
    for (const [n, release] of ["1.0.0", "1.1.0"].entries()) {
      const tags = { region: "eu-west-1", browser: n ? "Firefox" : "Chrome" };
      expect((await send({ message: "Cart total is NaN", release, environment: n ? "staging" : "production", tags, user: users[n] })).status).toBe(201);
    }
    expect((await send({ message: "Session store unreachable", release: "1.1.0" })).status).toBe(201);
    expect((await sendEvent(other.project.apiKey, { level: "error", projectId: other.project.id, message: "Someone else's issue" })).status).toBe(201);

    const listed = await callRoute(issuesRoute.GET, as(member.cookie, `/api/projects/${id}/issues`), { id });
    const issueId = (listed.body as { issues: { id: string; title: string }[] }).issues.find((i) => i.title === "Cart total is NaN")!.id;
    const secondId = (listed.body as { issues: { id: string; title: string }[] }).issues.find((i) => i.title === "Session store unreachable")!.id;
    const otherIssues = await callRoute(issuesRoute.GET, as(other.owner.cookie, `/api/projects/${other.project.id}/issues`), { id: other.project.id });
    const foreignId = (otherIssues.body as { issues: { id: string }[] }).issues[0]!.id;
    const issuePath = `/api/projects/${id}/issues/${issueId}`;
    const params = { id, issueId };

    // The events carry what the details aggregate.
    const events = await callRoute(projectEventsRoute.GET, as(member.cookie, `/api/projects/${id}/events?limit=10`), { id });
    expectDocumented("/api/projects/{id}/events", "GET", events, 200);
    const withUser = (events.body as { events: { id: string; release: string | null; user: unknown }[] }).events.find((e) => e.release === "1.0.0")!;
    expect(withUser).toMatchObject({ environment: "production", tags: { region: "eu-west-1", browser: "Chrome" }, user: users[0] });
    const oneEvent = await callRoute(eventRoute.GET, as(member.cookie, `/api/projects/${id}/events/${withUser.id}`), { id, eventId: withUser.id });
    expectDocumented("/api/projects/{id}/events/{eventId}", "GET", oneEvent, 200);

    const details = await callRoute(issueRoute.GET, as(member.cookie, issuePath), params);
    expectDocumented("/api/projects/{id}/issues/{issueId}", "GET", details, 200);
    expect(details.body).toMatchObject({ firstRelease: "1.0.0", lastRelease: "1.1.0", usersAffected: 2, status: "open", assignee: null, lateCount: 0 });
    expect([...(details.body as { environments: string[] }).environments].sort()).toEqual(["production", "staging"]);
    const tags = (details.body as { tags: { key: string; total: number }[] }).tags;
    expect(tags.find((t) => t.key === "browser")).toMatchObject({ total: 2, distinctCount: 2 });
    expectDocumented("/api/projects/{id}/issues/{issueId}", "GET", await callRoute(issueRoute.GET, as(member.cookie, `${issuePath}?since=yesterday`), params), 400);
    const foreignParams = { id, issueId: foreignId };
    const foreignPath = `/api/projects/${id}/issues/${foreignId}`;
    expectDocumented("/api/projects/{id}/issues/{issueId}", "GET", await callRoute(issueRoute.GET, as(member.cookie, foreignPath), foreignParams), 404);

    // Bulk: one change for two issues of the project and one of another project's.
    const bulk = await callRoute(
      issuesRoute.PATCH,
      as(member.cookie, `/api/projects/${id}/issues`, "PATCH", { issueIds: [issueId, secondId, foreignId], status: "ignored", ignoreMinutes: 60 }),
      { id },
    );
    expectDocumented("/api/projects/{id}/issues", "PATCH", bulk, 200);
    expect(bulk.body).toMatchObject({ notFound: [foreignId] });
    for (const changed of (bulk.body as { issues: { status: string; ignoredUntil: string | null }[] }).issues) {
      expect(changed.status).toBe("ignored");
      expect(Date.parse(changed.ignoredUntil!)).toBeGreaterThan(Date.now() + 50 * 60_000);
    }
    expect((bulk.body as { issues: unknown[] }).issues).toHaveLength(2);
    expectDocumented("/api/projects/{id}/issues", "PATCH", await callRoute(issuesRoute.PATCH, as(member.cookie, `/api/projects/${id}/issues`, "PATCH", { issueIds: [], status: "open" }), { id }), 400);

    // One issue: resolve in the next release, ignore for N events, assign a member.
    const change = (body: unknown, on = params, path = issuePath) => callRoute(issueRoute.PATCH, as(member.cookie, path, "PATCH", body), on);
    const nextRelease = await change({ status: "resolved", resolvedIn: "next_release" });
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", nextRelease, 200);
    expect(nextRelease.body).toMatchObject({ status: "resolved", resolvedIn: "next_release", resolvedRelease: "1.1.0", resolvedBy: { id: member.user.id } });
    const forEvents = await change({ status: "ignored", ignoreEvents: 5 });
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", forEvents, 200);
    expect(forEvents.body).toMatchObject({ status: "ignored", ignoredUntil: null, ignoredUntilCount: 7 });
    const assigned = await change({ assigneeId: owner.user.id });
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", assigned, 200);
    expect(assigned.body).toMatchObject({ assignee: { id: owner.user.id, email: owner.user.email } });
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", await change({ status: "resolved", ignoreEvents: 2 }), 400);
    expectDocumented("/api/projects/{id}/issues/{issueId}", "PATCH", await change({ status: "open" }, foreignParams, foreignPath), 404);

    // Comments and the activity page they end up in.
    const commentsPath = `${issuePath}/comments`;
    const comment = await callRoute(issueCommentsRoute.POST, as(member.cookie, commentsPath, "POST", { text: "Seen on Firefox only since 1.1.0" }), params);
    expectDocumented("/api/projects/{id}/issues/{issueId}/comments", "POST", comment, 201);
    expect(comment.body).toMatchObject({ kind: "comment", user: { id: member.user.id }, detail: { text: "Seen on Firefox only since 1.1.0" } });
    expectDocumented("/api/projects/{id}/issues/{issueId}/comments", "POST", await callRoute(issueCommentsRoute.POST, as(member.cookie, commentsPath, "POST", { text: "  " }), params), 400);
    expectDocumented(
      "/api/projects/{id}/issues/{issueId}/comments",
      "POST",
      await callRoute(issueCommentsRoute.POST, as(member.cookie, `${foreignPath}/comments`, "POST", { text: "mine now" }), foreignParams),
      404,
    );

    const activity = await callRoute(issueActivityRoute.GET, as(member.cookie, `${issuePath}/activity?limit=3`), params);
    expectDocumented("/api/projects/{id}/issues/{issueId}/activity", "GET", activity, 200);
    const page = activity.body as { activities: { kind: string; assignee?: unknown }[]; nextCursor: string | null };
    expect(page.activities.map((a) => a.kind)).toEqual(["comment", "assignment", "status"]);
    expect(page.activities[1]!.assignee).toMatchObject({ id: owner.user.id });
    expect(page.nextCursor).not.toBeNull();
    const rest = await callRoute(issueActivityRoute.GET, as(member.cookie, `${issuePath}/activity?cursor=${page.nextCursor}`), params);
    expectDocumented("/api/projects/{id}/issues/{issueId}/activity", "GET", rest, 200);
    expect((rest.body as { activities: unknown[] }).activities.length).toBeGreaterThan(0);
    expectDocumented("/api/projects/{id}/issues/{issueId}/activity", "GET", await callRoute(issueActivityRoute.GET, as(member.cookie, `${issuePath}/activity?limit=0`), params), 400);
    expectDocumented("/api/projects/{id}/issues/{issueId}/activity", "GET", await callRoute(issueActivityRoute.GET, as(member.cookie, `${foreignPath}/activity`), foreignParams), 404);
  });

  it("project settings: both key rotations, allowed origins, details with the DSN, and their problems", async () => {
    const { owner, member, project } = await createTeam("openapi-settings");
    const id = project.id;
    const as = (cookie: string, path: string, method = "GET", body?: unknown) => apiRequest(path, { cookie, method, body });
    const rotate = (query: string, cookie = owner.cookie) => callRoute(keyRoute.POST, as(cookie, `/api/projects/${id}/key${query}`, "POST"), { id });

    // Unknown query names are ignored, as on every route (a tracking parameter is no reason to refuse).
    const secret = await rotate("?kind=secret&utm_source=x");
    expectDocumented("/api/projects/{id}/key", "POST", secret, 200);
    expect(secret.body).toMatchObject({ kind: "secret", apiKey: expect.stringMatching(/^tlt_/) });
    const publicKey = await rotate("?kind=public");
    expectDocumented("/api/projects/{id}/key", "POST", publicKey, 200);
    const { publicKey: key, dsn } = publicKey.body as { publicKey: string; dsn: string };
    expect(dsn).toContain(key);
    expectDocumented("/api/projects/{id}/key", "POST", await rotate("?kind=private"), 400);
    expectDocumented("/api/projects/{id}/key", "POST", await rotate("?kind=public", member.cookie), 403);

    const origins = ["https://shop.example.test", "http://localhost:5173"];
    const patched = await callRoute(projectRoute.PATCH, as(owner.cookie, `/api/projects/${id}`, "PATCH", { allowedOrigins: origins }), { id });
    expectDocumented("/api/projects/{id}", "PATCH", patched, 200);
    expect(patched.body).toMatchObject({ allowedOrigins: origins, dsn });
    expectDocumented("/api/projects/{id}", "PATCH", await callRoute(projectRoute.PATCH, as(owner.cookie, `/api/projects/${id}`, "PATCH", { allowedOrigins: ["not an origin"] }), { id }), 400);
    expectDocumented("/api/projects/{id}", "PATCH", await callRoute(projectRoute.PATCH, as(owner.cookie, `/api/projects/${id}`, "PATCH", {}), { id }), 400);

    const details = await callRoute(projectRoute.GET, as(member.cookie, `/api/projects/${id}`), { id });
    expectDocumented("/api/projects/{id}", "GET", details, 200);
    expect(details.body).toMatchObject({ role: "member", apiKey: (secret.body as { apiKey: string }).apiKey, dsn, allowedOrigins: origins });
  });

  it("health and the document itself", async () => {
    expectDocumented("/api/health/live", "GET", await callRoute(liveRoute.GET, apiRequest("/api/health/live")), 200);
    expectDocumented("/api/health/ready", "GET", await callRoute(readyRoute.GET, apiRequest("/api/health/ready")), 200);
    expectDocumented("/api/openapi.json", "GET", await callRoute(openApiRoute.GET, apiRequest("/api/openapi.json")), 200);
  });
});
