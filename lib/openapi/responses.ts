/**
 * The answers of the API as zod schemas, for the OpenAPI description. The
 * handlers build their answers as TypeScript types (lib/<domain>); each
 * schema here is checked at compile time to be exactly the type its handler
 * returns (the `Checks` list at the end), and tests/integration/openapi
 * validates real answers against the document, so the two cannot drift.
 */
import { z } from "zod";
import { ROLES } from "@/lib/auth/roles";
import { AlertDeliveryKind, AlertDeliveryStatus, AlertSpikeScope, AlertTrigger, IssueActivityKind, WebhookFormat } from "@/lib/db/generated/kysely-enums";
import { EVENT_LEVELS } from "@/lib/events/schema";
import { ERROR_CODES } from "@/lib/http/errors";
import type { ProblemBody } from "@/lib/edge/problem";
import { ISSUE_STATUSES } from "@/lib/issues/filters";
import type { SummaryResult } from "@/lib/ai/summarize";
import type { listAlertDeliveries, sendTestAlert } from "@/lib/alerts/deliveries";
import type { createAlertRule, listAlertRules } from "@/lib/alerts/rules";
import type { getProjectEvent, listProjectEvents } from "@/lib/events/list";
import type { checkRedisReady } from "@/lib/health";
import type { ingestEvent, ingestEventBatch } from "@/lib/ingest/ingest";
import type { acceptInvitation, createInvitation, listPendingInvitationsForUser, listProjectInvitations } from "@/lib/invitations/service";
import type { addIssueComment, listIssueActivity } from "@/lib/issues/activities";
import type { getIssueDetails } from "@/lib/issues/issue-details";
import type { listProjectIssues } from "@/lib/issues/service";
import type { changeIssue, changeIssues } from "@/lib/issues/workflow";
import type { createProjectWithDsn } from "@/lib/project-setup/create-project";
import type { changeMemberRole, listMembers } from "@/lib/projects/members";
import type { getProjectDetails, listProjectsForUser, rotateKeyAsOwner, updateProject } from "@/lib/projects/service";

const isoTime = z.iso.datetime({ offset: true }).describe("ISO 8601 time");
const role = z.enum(ROLES);
const level = z.enum(EVENT_LEVELS);

/** RFC 9457 problem details, the body of every error answer (application/problem+json). */
export const problemSchema = z.object({
  type: z.string().describe("urn:telltale:error:<code>"),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string().describe("What went wrong and what to do, in a sentence or two"),
  code: z.enum(ERROR_CODES).describe("Stable machine-readable code"),
  errors: z
    .array(z.object({ path: z.string().describe("Dotted path of the field, e.g. events.3.level"), message: z.string() }))
    .max(100)
    .optional()
    .describe("Every field problem found (at most 100; the detail says how many more)"),
  requestId: z.string().optional().describe("On a 500: the id that is also in the server log"),
});

export const eventAcceptedSchema = z.object({ id: z.uuid(), receivedAt: isoTime });
export const batchAcceptedSchema = z.object({ ids: z.array(z.uuid()).min(1), receivedAt: isoTime });

/** OTLP's ExportLogsServiceResponse in its JSON mapping (64-bit counts are strings). */
export const otlpLogsResponseSchema = z.object({
  partialSuccess: z
    .object({
      rejectedLogRecords: z.string().regex(/^\d+$/).describe("int64 as a decimal string"),
      errorMessage: z.string(),
    })
    .optional()
    .describe("Present only when some records were refused; the others are stored"),
});

export const sentryAcceptedSchema = z.object({
  id: z.string().nullable().describe("The event_id of the envelope's event, null when it held none to store"),
});

export const projectSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  role,
  createdAt: isoTime,
  eventCount: z.int().min(0),
  keyLast4: z.string().nullable().describe("Last four characters of the active API key"),
});
export const projectListSchema = z.object({ projects: z.array(projectSummarySchema) });
export const createdProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  apiKey: z.string().regex(/^tlt_[A-Za-z0-9]+$/),
  dsn: z.string().nullable().describe("The Sentry DSN on this site's public origin, as GET /api/projects/{id} answers it"),
});
export const projectDetailsSchema = z.object({
  id: z.string(),
  name: z.string(),
  role,
  createdAt: isoTime,
  apiKey: z.string().nullable().describe("null when it cannot be decrypted (another TELLTALE_SECRET); an owner can rotate it"),
  dsn: z.string().nullable().describe("The Sentry DSN on this site's public origin; null when its public key cannot be decrypted"),
  allowedOrigins: z.array(z.string()).describe('Origins whose pages may send through the Sentry routes; ["*"] is any'),
});
export const rotatedKeySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("secret"), apiKey: z.string().regex(/^tlt_[A-Za-z0-9]+$/) }),
  z.object({ kind: z.literal("public"), publicKey: z.string(), dsn: z.string() }),
]);

export const memberSchema = z.object({ userId: z.string(), email: z.string(), name: z.string().nullable(), role, joinedAt: isoTime });
export const memberListSchema = z.object({ members: z.array(memberSchema) });

const inviterSchema = z.object({ email: z.string(), name: z.string().nullable() });
export const projectInvitationSchema = z.object({ id: z.string(), email: z.string(), role, createdAt: isoTime, expiresAt: isoTime, invitedBy: inviterSchema });
export const projectInvitationListSchema = z.object({ invitations: z.array(projectInvitationSchema) });
export const createdInvitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role,
  createdAt: isoTime,
  expiresAt: isoTime,
  inviteUrl: z.url().describe("The single-use link, to pass on if the mail does not arrive"),
  emailSent: z.boolean(),
});
export const pendingInvitationSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  projectName: z.string(),
  role,
  createdAt: isoTime,
  expiresAt: isoTime,
  invitedBy: inviterSchema,
});
export const pendingInvitationListSchema = z.object({ invitations: z.array(pendingInvitationSchema) });
export const acceptedInvitationSchema = z.object({ projectId: z.string(), role });

export const storedEventSchema = z.object({
  id: z.uuid(),
  projectId: z.string(),
  issueId: z.uuid().nullable(),
  level,
  message: z.string(),
  context: z.record(z.string(), z.unknown()).nullable(),
  timestamp: z.string().nullable().describe("As the client sent it; null when it sent none"),
  receivedAt: isoTime,
  occurredAt: isoTime,
  release: z.string().nullable(),
  environment: z.string().nullable(),
  tags: z.record(z.string(), z.string()).nullable(),
  user: z.object({ id: z.string().optional(), email: z.string().optional(), username: z.string().optional(), ip_address: z.string().optional() }).nullable(),
});
export const eventPageSchema = z.object({ events: z.array(storedEventSchema), nextCursor: z.string().nullable() });

const issueWindowSchema = z.object({ since: isoTime, until: isoTime, bucketMs: z.int().min(1) });
const issueFields = {
  id: z.uuid(),
  projectId: z.string(),
  level,
  title: z.string(),
  sampleMessage: z.string(),
  firstSeen: isoTime,
  lastSeen: isoTime,
  count: z.int().min(0).describe("Events ever grouped into it"),
  status: z.enum(ISSUE_STATUSES),
  regressedAt: isoTime.nullable(),
  assigneeId: z.string().nullable().describe("The user id of the member it is assigned to"),
  windowCount: z.int().min(0).describe("Events in the window asked for"),
  isNew: z.boolean(),
  isRegressed: z.boolean(),
  sparkline: z.array(z.int().min(0)).describe("Events per bucket of window.bucketMs, oldest first"),
};
export const issueSchema = z.object(issueFields);
export const issuePageSchema = z.object({ issues: z.array(issueSchema), nextCursor: z.string().nullable(), window: issueWindowSchema });
const personSchema = z.object({ id: z.string(), email: z.string(), name: z.string().nullable() });
const workflowFields = {
  assignee: personSchema.nullable().describe("The member it is assigned to"),
  resolvedAt: isoTime.nullable().describe("The last resolution (kept after the issue reopens)"),
  resolvedBy: personSchema.nullable(),
  resolvedIn: z.string().nullable().describe('"next_release", a release\'s version, or null (resolved by event time)'),
  resolvedRelease: z.string().nullable().describe("The release whose newer ones reopen it"),
  ignoredUntil: isoTime.nullable(),
  ignoredUntilCount: z.int().nullable().describe("Ignored until the issue's count reaches this; with ignoredUntil null and this null: forever"),
  lateCount: z.int().min(0).describe("Events that arrived while it was resolved and did not reopen it"),
};
export const issueWorkflowSchema = z.object({ id: z.string(), status: z.enum(ISSUE_STATUSES), ...workflowFields });
export const bulkIssueChangeAnswerSchema = z.object({
  issues: z.array(issueWorkflowSchema),
  notFound: z.array(z.string()).describe("Ids that are not issues of this project (nothing was changed for them)"),
});
const tagBreakdownSchema = z.object({
  key: z.string(),
  values: z.array(z.object({ value: z.string(), count: z.int().min(0), share: z.number().min(0).max(1) })).describe("The most frequent values first"),
  total: z.int().min(0).describe("Events in the window with this tag"),
  otherCount: z.int().min(0).describe("Events with a value not listed (including values past the bound kept per hour or day)"),
  distinctCount: z.int().min(0),
  distinctCountEstimate: z.boolean().describe("True when distinctCount is a lower bound"),
});
export const issueDetailsSchema = z.object({
  ...issueFields,
  window: issueWindowSchema,
  ...workflowFields,
  firstRelease: z.string().nullable(),
  lastRelease: z.string().nullable(),
  environments: z.array(z.string()),
  usersAffected: z.int().min(0),
  usersAffectedEstimate: z.boolean().describe("True when usersAffected is a lower bound"),
  tags: z.array(tagBreakdownSchema),
  tagsExact: z.boolean().describe("False when a busy edge of the window was estimated from a sample"),
});
export const activitySchema = z.object({
  id: z.string(),
  kind: z.enum(Object.values(IssueActivityKind) as [IssueActivityKind, ...IssueActivityKind[]]),
  createdAt: isoTime,
  user: personSchema.nullable().describe("Who did it; null for what Telltale did itself"),
  detail: z
    .record(z.string(), z.unknown())
    .describe(
      "By kind: status {from, to, resolveMode?, resolvedIn?, ignoredUntil?, ignoreEvents?, reason?}; assignment {assigneeId, previousAssigneeId, reason?}; comment {text}; regression {at}",
    ),
  assignee: personSchema.nullable().optional().describe("For an assignment: the new assignee"),
});
export const activityPageSchema = z.object({ activities: z.array(activitySchema), nextCursor: z.string().nullable() });

export const alertRuleSchema = z.object({
  id: z.string(),
  trigger: z.enum(AlertTrigger),
  minLevel: level,
  spike: z.object({ count: z.int(), minutes: z.int(), scope: z.enum(AlertSpikeScope) }).nullable(),
  channel: z.discriminatedUnion("type", [
    z.object({ type: z.literal("email"), userIds: z.array(z.string()) }),
    z.object({ type: z.literal("webhook"), url: z.string().describe("Whole for owners, the origin only for members"), format: z.enum(WebhookFormat) }),
  ]),
  paused: z.object({ at: isoTime, reason: z.string().nullable() }).nullable(),
  createdAt: isoTime,
});
export const alertRuleListSchema = z.object({ rules: z.array(alertRuleSchema) });
export const createdAlertRuleSchema = alertRuleSchema.extend({
  signingSecret: z.string().optional().describe("A webhook's signing secret, shown this once"),
});
export const alertDeliverySchema = z.object({
  id: z.string(),
  ruleId: z.string().nullable(),
  kind: z.enum(AlertDeliveryKind),
  issue: z.object({ id: z.string(), title: z.string() }).nullable(),
  channel: z.string(),
  status: z.enum(AlertDeliveryStatus),
  answer: z.string().nullable(),
  attempts: z.int().min(0),
  createdAt: isoTime,
  lastAttemptAt: isoTime.nullable(),
  sentAt: isoTime.nullable(),
  nextAttemptAt: isoTime.nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
});
export const alertDeliveryPageSchema = z.object({ deliveries: z.array(alertDeliverySchema), nextCursor: z.string().nullable() });
export const testDeliverySchema = z.object({ delivery: alertDeliverySchema });

export const summarySchema = z.strictObject({ summary: z.string() });
const summaryResultFields = {
  summary: z.string(),
  source: z.union([z.literal("builtin"), z.templateLiteral(["model:", z.string()])]),
  fallback: z.enum(["ai_unavailable", "ai_rate_limited", "ai_inconsistent"]).optional(),
  eventCount: z.int().min(0),
  examined: z.int().min(0),
  cached: z.boolean(),
};
/** One line of GET /api/ai/summarize/stream: the digest at once, then the final answer. */
export const summaryStreamLineSchema = z.object({ kind: z.enum(["digest", "final"]), ...summaryResultFields });

export const liveSchema = z.object({ status: z.literal("ok") });
export const readySchema = z.object({
  status: z.literal("ok"),
  details: z
    .object({
      redis: z.union([
        z.object({ status: z.literal("ok") }),
        z.object({ status: z.enum(["connecting", "unreachable"]), since: isoTime, reason: z.string().optional(), effect: z.string() }),
      ]),
    })
    .optional()
    .describe("With REDIS_URL only; an unreachable Redis is reported here, never a 503"),
});

/** The OpenAPI document itself (GET /api/openapi.json). */
export const openApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

// Compile-time proof that each schema is exactly what its handler answers
// (the lib function's result, as the route file wraps it).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type Out<S extends z.ZodType> = z.output<S>;
type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
// Unused on purpose: the compiler checks it (a name with `_` is not reported unused).
type _Checks = [
  Assert<Same<Out<typeof problemSchema>, ProblemBody>>,
  Assert<Same<Out<typeof eventAcceptedSchema>, Result<typeof ingestEvent>["body"]>>,
  Assert<Same<Out<typeof batchAcceptedSchema>, Result<typeof ingestEventBatch>["body"]>>,
  Assert<Same<Out<typeof projectListSchema>, { projects: Result<typeof listProjectsForUser> }>>,
  Assert<Same<Out<typeof createdProjectSchema>, Result<typeof createProjectWithDsn>>>,
  Assert<Same<Out<typeof projectDetailsSchema>, Result<typeof getProjectDetails>>>,
  Assert<Same<Out<typeof projectDetailsSchema>, Result<typeof updateProject>>>,
  Assert<Same<Out<typeof rotatedKeySchema>, Result<typeof rotateKeyAsOwner>>>,
  Assert<Same<Out<typeof memberListSchema>, { members: Result<typeof listMembers> }>>,
  Assert<Same<Out<typeof memberSchema>, Result<typeof changeMemberRole>>>,
  Assert<Same<Out<typeof projectInvitationListSchema>, { invitations: Result<typeof listProjectInvitations> }>>,
  Assert<Same<Out<typeof createdInvitationSchema>, Result<typeof createInvitation>>>,
  Assert<Same<Out<typeof pendingInvitationListSchema>, { invitations: Result<typeof listPendingInvitationsForUser> }>>,
  Assert<Same<Out<typeof acceptedInvitationSchema>, Result<typeof acceptInvitation>>>,
  Assert<Same<Out<typeof eventPageSchema>, Result<typeof listProjectEvents>>>,
  Assert<Same<Out<typeof storedEventSchema>, Result<typeof getProjectEvent>>>,
  Assert<Same<Out<typeof issuePageSchema>, Result<typeof listProjectIssues>>>,
  Assert<Same<Out<typeof issueDetailsSchema>, Result<typeof getIssueDetails>>>,
  Assert<Same<Out<typeof issueWorkflowSchema>, Result<typeof changeIssue>>>,
  Assert<Same<Out<typeof bulkIssueChangeAnswerSchema>, Result<typeof changeIssues>>>,
  Assert<Same<Out<typeof activityPageSchema>, Result<typeof listIssueActivity>>>,
  Assert<Same<Out<typeof activitySchema>, Result<typeof addIssueComment>>>,
  Assert<Same<Out<typeof alertRuleListSchema>, { rules: Result<typeof listAlertRules> }>>,
  Assert<Same<Out<typeof createdAlertRuleSchema>, Result<typeof createAlertRule>["rule"] & { signingSecret?: string }>>,
  Assert<Same<Out<typeof alertDeliveryPageSchema>, Result<typeof listAlertDeliveries>>>,
  Assert<Same<Out<typeof testDeliverySchema>, { delivery: Result<typeof sendTestAlert> }>>,
  Assert<Same<Omit<Out<typeof summaryStreamLineSchema>, "kind">, SummaryResult>>,
  Assert<Same<NonNullable<Out<typeof readySchema>["details"]>["redis"], NonNullable<Result<typeof checkRedisReady>>>>,
];
