/**
 * Every public route of the API, for the OpenAPI description
 * (lib/openapi/document.ts). The request schemas are the very zod objects
 * the route files pass to lib/edge/route.ts, imported from the same modules;
 * the answers are lib/openapi/responses.ts. tests/unit/openapi-coverage
 * fails when a route file serves a method that is not listed here.
 */
import type { z } from "zod";
import { summarizeQuerySchema } from "@/lib/ai/schemas";
import { alertDeliveriesQuerySchema, alertRuleParamsSchema, createAlertRuleBodySchema } from "@/lib/alerts/schemas";
import { eventParamsSchema, eventsQuerySchema } from "@/lib/events/filters";
import { eventBatchSchema, eventInputSchema } from "@/lib/events/schema";
import { idempotencyKeySchema } from "@/lib/http/input";
import { createInvitationBodySchema, invitationParamsSchema, tokenParamsSchema } from "@/lib/invitations/schemas";
import { issueParamsSchema, issuesQuerySchema, issueWindowQuerySchema } from "@/lib/issues/filters";
import { activityQuerySchema, bulkIssueChangeBodySchema, commentBodySchema, issueChangeBodySchema } from "@/lib/issues/workflow-schemas";
import {
  otlpJsonAnyValueSchema,
  otlpJsonKeyValuesSchema,
  otlpJsonLogRecordSchema,
  otlpJsonLogRecordsSchema,
  otlpJsonLogsRequestSchema,
} from "@/lib/otlp/decode-json";
import { changeRoleBodySchema, createProjectBodySchema, memberParamsSchema, projectParamsSchema, rotateKeyQuerySchema, updateProjectBodySchema } from "@/lib/projects/schemas";
import { sentryPathParamsSchema } from "@/lib/sentry/ingest";
import * as answers from "@/lib/openapi/responses";

/** Who may call: a project API key, a signed-in session, a Sentry DSN's public key, or anyone. */
export type Caller = "apiKey" | "session" | "sentryKey" | "public";

/** A body or answer: a zod schema, or a form zod cannot describe (bytes, NDJSON lines). */
export type Content = z.ZodType | z.ZodType[] | { raw: "binary" | "text"; description: string };

export type Answer = { description: string; content?: Record<string, Content>; headers?: HeaderName[] };

export type HeaderName = "RequestId" | "RateLimit" | "RetryAfter" | "IdempotentReplayed" | "SentryRateLimits" | "Allow" | "WwwAuthenticate" | "SummaryHeaders";

export type Operation = {
  method: "get" | "post" | "patch" | "delete" | "options";
  /** OpenAPI path, `{name}` for a parameter. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  caller: Caller;
  params?: z.ZodType;
  query?: z.ZodType;
  headers?: Record<string, { schema: z.ZodType; description: string }>;
  body?: { description?: string; content: Record<string, Content> };
  answers: Record<number, Answer>;
  /** Statuses answered with problem details (RFC 9457). */
  problems: number[];
};

/** Schemas that get a name in components.schemas (request bodies read as input, answers as output). */
export const namedRequestSchemas: Record<string, z.ZodType> = {
  EventInput: eventInputSchema,
  EventBatch: eventBatchSchema,
  EventList: eventBatchSchema.shape.events,
  OtlpLogsRequest: otlpJsonLogsRequestSchema,
  OtlpLogRecord: otlpJsonLogRecordSchema,
  OtlpAnyValue: otlpJsonAnyValueSchema,
  OtlpKeyValueList: otlpJsonKeyValuesSchema,
  ProjectNameBody: createProjectBodySchema,
  UpdateProjectBody: updateProjectBodySchema,
  ChangeRoleBody: changeRoleBodySchema,
  CreateInvitationBody: createInvitationBodySchema,
  IssueChangeBody: issueChangeBodySchema,
  BulkIssueChangeBody: bulkIssueChangeBodySchema,
  CommentBody: commentBodySchema,
  CreateAlertRuleBody: createAlertRuleBodySchema,
};

/**
 * Arrays whose items a route checks one by one after the envelope (so that
 * every problem is listed with its path): their items are described by the
 * schema that checks each one.
 */
export const itemSchemas = new Map<unknown, string>([
  [eventBatchSchema.shape.events.element, "EventInput"],
  [otlpJsonLogRecordsSchema.element, "OtlpLogRecord"],
]);

export const namedResponseSchemas: Record<string, z.ZodType> = {
  Problem: answers.problemSchema,
  EventAccepted: answers.eventAcceptedSchema,
  BatchAccepted: answers.batchAcceptedSchema,
  OtlpLogsResponse: answers.otlpLogsResponseSchema,
  SentryAccepted: answers.sentryAcceptedSchema,
  ProjectSummary: answers.projectSummarySchema,
  ProjectList: answers.projectListSchema,
  CreatedProject: answers.createdProjectSchema,
  ProjectDetails: answers.projectDetailsSchema,
  RotatedKey: answers.rotatedKeySchema,
  Member: answers.memberSchema,
  MemberList: answers.memberListSchema,
  ProjectInvitation: answers.projectInvitationSchema,
  ProjectInvitationList: answers.projectInvitationListSchema,
  CreatedInvitation: answers.createdInvitationSchema,
  PendingInvitation: answers.pendingInvitationSchema,
  PendingInvitationList: answers.pendingInvitationListSchema,
  AcceptedInvitation: answers.acceptedInvitationSchema,
  StoredEvent: answers.storedEventSchema,
  EventPage: answers.eventPageSchema,
  Issue: answers.issueSchema,
  IssuePage: answers.issuePageSchema,
  IssueDetails: answers.issueDetailsSchema,
  IssueWorkflow: answers.issueWorkflowSchema,
  BulkIssueChange: answers.bulkIssueChangeAnswerSchema,
  Activity: answers.activitySchema,
  ActivityPage: answers.activityPageSchema,
  AlertRule: answers.alertRuleSchema,
  AlertRuleList: answers.alertRuleListSchema,
  CreatedAlertRule: answers.createdAlertRuleSchema,
  AlertDelivery: answers.alertDeliverySchema,
  AlertDeliveryPage: answers.alertDeliveryPageSchema,
  TestDelivery: answers.testDeliverySchema,
  Summary: answers.summarySchema,
  SummaryStreamLine: answers.summaryStreamLineSchema,
  Live: answers.liveSchema,
  Ready: answers.readySchema,
  OpenApiDocument: answers.openApiDocumentSchema,
};

const JSON_TYPE = "application/json";
const json = (schema: z.ZodType) => ({ [JSON_TYPE]: schema });
const ok = (description: string, schema: z.ZodType, headers: HeaderName[] = []): Answer => ({ description, content: json(schema), headers });
const noContent: Answer = { description: "Done; no body." };

const idempotencyKey = {
  "Idempotency-Key": {
    schema: idempotencyKeySchema,
    description: "1 to 200 printable ASCII characters: a retry with the same key for the same project within 24 hours gets the first answer and stores nothing new.",
  },
};
const compressed = "The body may be sent with Content-Encoding gzip, deflate or br; the limits apply to the compressed and the decoded body.";

// Problem statuses by kind of route. 500 (with a request id) can happen anywhere.
const INGEST = [400, 401, 413, 415, 429, 500, 503];
const SESSION_READ = [401, 500, 503];
const PROJECT_READ = [400, 401, 404, 500, 503];
/** State changes also check the same-origin proof (403) and the role (403). */
const PROJECT_WRITE = [400, 401, 403, 404, 409, 500, 503];

export const operations: Operation[] = [
  // Ingestion
  {
    method: "post",
    path: "/api/events",
    operationId: "ingestEvent",
    tag: "Ingest",
    summary: "Send one event",
    description: `Acknowledged (201) only after the event is committed. ${compressed}`,
    caller: "apiKey",
    headers: idempotencyKey,
    body: { content: json(eventInputSchema) },
    answers: { 201: ok("Stored.", answers.eventAcceptedSchema, ["RateLimit", "IdempotentReplayed"]) },
    problems: [...INGEST, 403],
  },
  {
    method: "post",
    path: "/api/events/batch",
    operationId: "ingestEventBatch",
    tag: "Ingest",
    summary: "Send 1 to 1,000 events, all or nothing",
    description: `As {"events": [...]}, a bare JSON array, or NDJSON (one event per line). One invalid event refuses the batch, with each problem's path (events.3.level). ${compressed}`,
    caller: "apiKey",
    headers: idempotencyKey,
    body: {
      content: {
        [JSON_TYPE]: [eventBatchSchema, eventBatchSchema.shape.events],
        "application/x-ndjson": { raw: "text", description: "One EventInput JSON object per line." },
      },
    },
    answers: { 201: ok("Stored, ids in the order sent.", answers.batchAcceptedSchema, ["RateLimit", "IdempotentReplayed"]) },
    problems: [...INGEST, 403],
  },
  {
    method: "post",
    path: "/v1/logs",
    operationId: "ingestOtlpLogs",
    tag: "Ingest",
    summary: "OpenTelemetry logs (OTLP/HTTP)",
    description:
      "An ExportLogsServiceRequest in protobuf or OTLP/JSON; the key names the project. A record that can't be stored is counted in partialSuccess and never fails the others. The answer is in the request's encoding (shown here in JSON). " +
      compressed.replace(", deflate or br", ""),
    caller: "apiKey",
    body: {
      content: {
        "application/x-protobuf": { raw: "binary", description: "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest" },
        [JSON_TYPE]: otlpJsonLogsRequestSchema,
      },
    },
    answers: {
      200: {
        description: "Committed; partialSuccess names the refused records, if any.",
        content: {
          [JSON_TYPE]: answers.otlpLogsResponseSchema,
          "application/x-protobuf": { raw: "binary", description: "opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse" },
        },
        headers: ["RateLimit"],
      },
    },
    problems: INGEST,
  },
  ...(["envelope", "store"] as const).flatMap((endpoint): Operation[] => [
    {
      method: "post",
      path: `/api/{projectNumber}/${endpoint}/`,
      operationId: endpoint === "envelope" ? "sentryEnvelope" : "sentryStore",
      tag: "Sentry",
      summary: endpoint === "envelope" ? "Sentry SDK envelope" : "Sentry SDK event (legacy store endpoint)",
      description:
        (endpoint === "envelope"
          ? "What a Sentry SDK sends with a Telltale DSN: events and logs are stored, other item types are accepted and counted. The key may also come from the envelope header's dsn."
          : "A Sentry event as JSON, or as base64 of zlib-compressed JSON (raven-node, raven-python, sentry-raven and raven-php send it so, with no Content-Encoding).") +
        ` Served with or without the trailing slash; any Content-Type. CORS for the project's allowed origins. ${compressed}`,
      caller: "sentryKey",
      params: sentryPathParamsSchema,
      body: { content: { "*/*": { raw: "binary", description: endpoint === "envelope" ? "A Sentry envelope (newline-separated headers and items)." : "A Sentry event (JSON, or base64 of zlib-compressed JSON)." } } },
      answers: { 200: ok("Committed; a retry of the same event_id stores nothing new.", answers.sentryAcceptedSchema) },
      problems: [400, 401, 403, 404, 413, 415, 429, 500, 503],
    },
    {
      method: "options",
      path: `/api/{projectNumber}/${endpoint}/`,
      operationId: endpoint === "envelope" ? "sentryEnvelopePreflight" : "sentryStorePreflight",
      tag: "Sentry",
      summary: "CORS preflight for browser SDKs",
      caller: "public",
      params: sentryPathParamsSchema,
      answers: { 204: { description: "The Access-Control-* headers for the page's origin." } },
      problems: [],
    },
  ]),

  // Projects and keys
  {
    method: "get",
    path: "/api/projects",
    operationId: "listProjects",
    tag: "Projects",
    summary: "The caller's projects with their role",
    caller: "session",
    answers: { 200: ok("Newest first.", answers.projectListSchema) },
    problems: SESSION_READ,
  },
  {
    method: "post",
    path: "/api/projects",
    operationId: "createProject",
    tag: "Projects",
    summary: "Create a project (the caller becomes its owner)",
    caller: "session",
    body: { content: json(createProjectBodySchema) },
    answers: { 201: ok("Created, with its API key and DSN.", answers.createdProjectSchema) },
    problems: [400, 401, 403, 409, 500, 503],
  },
  {
    method: "get",
    path: "/api/projects/{id}",
    operationId: "getProject",
    tag: "Projects",
    summary: "A project with its API key (members)",
    caller: "session",
    params: projectParamsSchema,
    answers: { 200: ok("The project.", answers.projectDetailsSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "patch",
    path: "/api/projects/{id}",
    operationId: "updateProject",
    tag: "Projects",
    summary: "Rename a project and/or set its allowed origins (owners)",
    caller: "session",
    params: projectParamsSchema,
    body: { content: json(updateProjectBodySchema) },
    answers: { 200: ok("The project, as GET answers it.", answers.projectDetailsSchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "delete",
    path: "/api/projects/{id}",
    operationId: "deleteProject",
    tag: "Projects",
    summary: "Delete a project and its events (owners)",
    caller: "session",
    params: projectParamsSchema,
    answers: { 204: noContent },
    problems: PROJECT_WRITE,
  },
  {
    method: "post",
    path: "/api/projects/{id}/key",
    operationId: "rotateProjectKey",
    tag: "Projects",
    summary: "Rotate the API key or the DSN's public key (owners); the old key stops working at once",
    caller: "session",
    params: projectParamsSchema,
    query: rotateKeyQuerySchema,
    answers: { 200: ok("The new key.", answers.rotatedKeySchema) },
    problems: PROJECT_WRITE,
  },

  // Members
  {
    method: "get",
    path: "/api/projects/{id}/members",
    operationId: "listMembers",
    tag: "Members",
    summary: "The project's members with their roles",
    caller: "session",
    params: projectParamsSchema,
    answers: { 200: ok("Owners first.", answers.memberListSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "patch",
    path: "/api/projects/{id}/members/{userId}",
    operationId: "changeMemberRole",
    tag: "Members",
    summary: "Change a member's role (owners); the last owner stays (409)",
    caller: "session",
    params: memberParamsSchema,
    body: { content: json(changeRoleBodySchema) },
    answers: { 200: ok("The member.", answers.memberSchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "delete",
    path: "/api/projects/{id}/members/{userId}",
    operationId: "removeMember",
    tag: "Members",
    summary: "Remove a member (owners), or leave (anyone); the last owner stays (409)",
    caller: "session",
    params: memberParamsSchema,
    answers: { 204: noContent },
    problems: PROJECT_WRITE,
  },

  // Invitations
  {
    method: "get",
    path: "/api/projects/{id}/invitations",
    operationId: "listProjectInvitations",
    tag: "Invitations",
    summary: "The project's pending invitations (owners)",
    caller: "session",
    params: projectParamsSchema,
    answers: { 200: ok("Pending invitations.", answers.projectInvitationListSchema) },
    problems: [...PROJECT_READ, 403],
  },
  {
    method: "post",
    path: "/api/projects/{id}/invitations",
    operationId: "createInvitation",
    tag: "Invitations",
    summary: "Invite someone by email (owners); the single-use link expires in 7 days",
    caller: "session",
    params: projectParamsSchema,
    body: { content: json(createInvitationBodySchema) },
    answers: { 201: ok("Invited.", answers.createdInvitationSchema) },
    problems: [...PROJECT_WRITE, 429],
  },
  {
    method: "delete",
    path: "/api/projects/{id}/invitations/{invitationId}",
    operationId: "revokeInvitation",
    tag: "Invitations",
    summary: "Revoke an invitation (owners)",
    caller: "session",
    params: invitationParamsSchema,
    answers: { 204: noContent },
    problems: PROJECT_WRITE,
  },
  {
    method: "get",
    path: "/api/invitations",
    operationId: "listMyInvitations",
    tag: "Invitations",
    summary: "The caller's pending invitations (sent to their address)",
    caller: "session",
    answers: { 200: ok("Pending invitations.", answers.pendingInvitationListSchema) },
    problems: SESSION_READ,
  },
  {
    method: "post",
    path: "/api/invitations/{token}/accept",
    operationId: "acceptInvitation",
    tag: "Invitations",
    summary: "Accept an invitation; the session's address must be the invited one",
    caller: "session",
    params: tokenParamsSchema,
    answers: { 200: ok("Now a member.", answers.acceptedInvitationSchema) },
    problems: [401, 403, 404, 409, 500, 503],
  },

  // Issues
  {
    method: "get",
    path: "/api/projects/{id}/issues",
    operationId: "listIssues",
    tag: "Issues",
    summary: "Issues with events in the window (default the last 24 hours)",
    caller: "session",
    params: projectParamsSchema,
    query: issuesQuerySchema,
    answers: { 200: ok("A page of issues; pass nextCursor back as cursor for the next.", answers.issuePageSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "get",
    path: "/api/projects/{id}/issues/{issueId}",
    operationId: "getIssue",
    tag: "Issues",
    summary: "One issue with its counts, workflow state, releases, environments, users affected and tag breakdown in the window",
    caller: "session",
    params: issueParamsSchema,
    query: issueWindowQuerySchema,
    answers: { 200: ok("The issue.", answers.issueDetailsSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "patch",
    path: "/api/projects/{id}/issues",
    operationId: "changeIssues",
    tag: "Issues",
    summary: "One change (resolve, ignore, reopen, assign) for several issues of the project (members)",
    caller: "session",
    params: projectParamsSchema,
    body: { content: json(bulkIssueChangeBodySchema) },
    answers: { 200: ok("The changed issues' workflow state, and the ids that are not issues of this project.", answers.bulkIssueChangeAnswerSchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "patch",
    path: "/api/projects/{id}/issues/{issueId}",
    operationId: "changeIssue",
    tag: "Issues",
    summary: "Resolve (now, in the next release, in a release), ignore (for a while, for N events, forever), reopen or assign an issue (members)",
    caller: "session",
    params: issueParamsSchema,
    body: { content: json(issueChangeBodySchema) },
    answers: { 200: ok("The issue's workflow state.", answers.issueWorkflowSchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "get",
    path: "/api/projects/{id}/issues/{issueId}/activity",
    operationId: "listIssueActivity",
    tag: "Issues",
    summary: "The issue's activity (status changes, assignments, comments, regressions), newest first",
    caller: "session",
    params: issueParamsSchema,
    query: activityQuerySchema,
    answers: { 200: ok("A page of activity; pass nextCursor back as cursor for the next.", answers.activityPageSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "post",
    path: "/api/projects/{id}/issues/{issueId}/comments",
    operationId: "commentIssue",
    tag: "Issues",
    summary: "Comment on an issue (members)",
    caller: "session",
    params: issueParamsSchema,
    body: { content: json(commentBodySchema) },
    answers: { 201: ok("The comment, as the activity it became.", answers.activitySchema) },
    problems: PROJECT_WRITE,
  },

  // Events
  {
    method: "get",
    path: "/api/projects/{id}/events",
    operationId: "listEvents",
    tag: "Events",
    summary: "The project's events, newest first",
    caller: "session",
    params: projectParamsSchema,
    query: eventsQuerySchema,
    answers: { 200: ok("A page of events; pass nextCursor back as cursor for the next.", answers.eventPageSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "get",
    path: "/api/projects/{id}/events/{eventId}",
    operationId: "getEvent",
    tag: "Events",
    summary: "One event (the dashboard's permalink)",
    caller: "session",
    params: eventParamsSchema,
    answers: { 200: ok("The event.", answers.storedEventSchema) },
    problems: PROJECT_READ,
  },

  // Alerts
  {
    method: "get",
    path: "/api/projects/{id}/alerts",
    operationId: "listAlertRules",
    tag: "Alerts",
    summary: "The project's alert rules",
    caller: "session",
    params: projectParamsSchema,
    answers: { 200: ok("The rules; members see a webhook's origin only.", answers.alertRuleListSchema) },
    problems: PROJECT_READ,
  },
  {
    method: "post",
    path: "/api/projects/{id}/alerts",
    operationId: "createAlertRule",
    tag: "Alerts",
    summary: "Create an alert rule (owners)",
    caller: "session",
    params: projectParamsSchema,
    body: { content: json(createAlertRuleBodySchema) },
    answers: { 201: ok("The rule; a webhook's signingSecret is shown this once.", answers.createdAlertRuleSchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "delete",
    path: "/api/projects/{id}/alerts/{ruleId}",
    operationId: "deleteAlertRule",
    tag: "Alerts",
    summary: "Delete an alert rule (owners); what it had not sent is cancelled",
    caller: "session",
    params: alertRuleParamsSchema,
    answers: { 204: noContent },
    problems: PROJECT_WRITE,
  },
  {
    method: "post",
    path: "/api/projects/{id}/alerts/{ruleId}/test",
    operationId: "testAlertRule",
    tag: "Alerts",
    summary: "Send a test notification through the rule's channel now (owners)",
    caller: "session",
    params: alertRuleParamsSchema,
    answers: { 200: ok("The delivery, as the log shows it.", answers.testDeliverySchema) },
    problems: PROJECT_WRITE,
  },
  {
    method: "get",
    path: "/api/projects/{id}/alerts/deliveries",
    operationId: "listAlertDeliveries",
    tag: "Alerts",
    summary: "The delivery log, newest first",
    caller: "session",
    params: projectParamsSchema,
    query: alertDeliveriesQuerySchema,
    answers: { 200: ok("A page of deliveries.", answers.alertDeliveryPageSchema) },
    problems: PROJECT_READ,
  },

  // Summary
  {
    method: "get",
    path: "/api/ai/summarize",
    operationId: "summarize",
    tag: "Summary",
    summary: "An AI-written summary of recent events (session only: an API key is refused)",
    description: "Without a configured model, or when it fails, the built-in digest answers; the headers say which.",
    caller: "session",
    query: summarizeQuerySchema,
    answers: { 200: ok("Exactly one field, summary.", answers.summarySchema, ["SummaryHeaders"]) },
    problems: [400, 401, 403, 429, 500, 503],
  },
  {
    method: "get",
    path: "/api/ai/summarize/stream",
    operationId: "summarizeStream",
    tag: "Summary",
    summary: "The summary as NDJSON: the built-in digest at once, then the final answer",
    caller: "session",
    query: summarizeQuerySchema,
    answers: {
      200: {
        description: "One SummaryStreamLine per line (kind digest, then final; or final alone).",
        content: { "application/x-ndjson": { raw: "text", description: "Lines of #/components/schemas/SummaryStreamLine." } },
      },
    },
    problems: [400, 401, 403, 429, 500, 503],
  },

  // Health and this document
  {
    method: "get",
    path: "/api/health/live",
    operationId: "live",
    tag: "Health",
    summary: "Liveness: the process serves requests (no database)",
    caller: "public",
    answers: { 200: ok("Alive.", answers.liveSchema) },
    problems: [500],
  },
  {
    method: "get",
    path: "/api/health/ready",
    operationId: "ready",
    tag: "Health",
    summary: "Readiness: the database answers",
    caller: "public",
    answers: { 200: ok("Ready.", answers.readySchema) },
    problems: [500, 503],
  },
  {
    method: "get",
    path: "/api/openapi.json",
    operationId: "openApiDocument",
    tag: "Health",
    summary: "This OpenAPI 3.1 description",
    caller: "public",
    answers: { 200: ok("The document.", answers.openApiDocumentSchema) },
    problems: [500],
  },
];
