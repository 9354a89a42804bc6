-- Tag counts kept outside the ingest statement until added: the statement
-- appends one row of (issue, hour, key, value, count) arrays; readers and a
-- background step add them to issue_tag_hours / issue_tag_days.
-- CreateTable
CREATE TABLE "tag_count_backlog" (
    "id" BIGSERIAL NOT NULL,
    "issue_ids" UUID[],
    "project_ids" TEXT[],
    "hours" TIMESTAMPTZ(3)[],
    "keys" TEXT[],
    "tag_values" TEXT[],
    "counts" INTEGER[],
    "tag_rows" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tag_count_backlog_pkey" PRIMARY KEY ("id")
);
