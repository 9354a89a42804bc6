/**
 * Which module owns each table: only files in that folder may name the table
 * in a query (Kysely builder, `sql` template or Prisma model call). Others call
 * the owner's functions. A test (tests/unit/table-owners.test.ts) checks that
 * every table in prisma/schema.prisma is listed here.
 */
export const TABLE_OWNERS = {
  users: "lib/auth",
  accounts: "lib/auth",
  sessions: "lib/auth",
  verification_tokens: "lib/auth",
  memberships: "lib/auth",
  projects: "lib/projects",
  api_keys: "lib/keys",
  invitations: "lib/invitations",
  events: "lib/events",
  issues: "lib/issues",
  issue_counts: "lib/issues",
  issue_hours: "lib/issues",
  issue_days: "lib/issues",
  issue_tag_hours: "lib/issues",
  issue_tag_days: "lib/issues",
  tag_count_backlog: "lib/issues",
  issue_activities: "lib/issues",
  releases: "lib/releases",
  dropped_item_counts: "lib/sentry",
  idempotency_keys: "lib/ingest",
  alert_rules: "lib/alerts",
  alert_deliveries: "lib/alerts",
  alert_cooldowns: "lib/alerts",
  job_leases: "lib/jobs",
};
