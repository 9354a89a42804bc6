-- CreateEnum
CREATE TYPE "api_key_kind" AS ENUM ('secret', 'public');

-- CreateEnum
CREATE TYPE "resolve_mode" AS ENUM ('now', 'next_release', 'in_release');

-- CreateEnum
CREATE TYPE "issue_activity_kind" AS ENUM ('status', 'assignment', 'comment', 'regression');

-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "kind" "api_key_kind" NOT NULL DEFAULT 'secret';

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "environment" TEXT,
ADD COLUMN     "release" TEXT,
ADD COLUMN     "tags" JSONB,
ADD COLUMN     "user_info" JSONB;

-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "assignee_id" TEXT,
ADD COLUMN     "first_release_seq" INTEGER,
ADD COLUMN     "last_release_seq" INTEGER,
ADD COLUMN     "ignored_until" TIMESTAMPTZ(3),
ADD COLUMN     "ignored_until_count" BIGINT,
ADD COLUMN     "late_count" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "pre_stack" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "resolve_mode" "resolve_mode",
ADD COLUMN     "resolved_at" TIMESTAMPTZ(3),
ADD COLUMN     "resolved_by_id" TEXT,
ADD COLUMN     "resolved_in" TEXT,
ADD COLUMN     "resolved_seq" INTEGER;

-- Issues that exist now were grouped by message template alone (see
-- Issue.preStack); issues created from now on are not.
ALTER TABLE "issues" ALTER COLUMN "pre_stack" SET DEFAULT false;

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "allowed_origins" TEXT[] DEFAULT ARRAY['*']::TEXT[],
ADD COLUMN     "number" SERIAL NOT NULL;

-- CreateTable
CREATE TABLE "issue_tag_hours" (
    "issue_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_tag_hours_pkey" PRIMARY KEY ("issue_id","hour","key","value")
);

-- CreateTable
CREATE TABLE "issue_tag_days" (
    "issue_id" UUID NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_tag_days_pkey" PRIMARY KEY ("issue_id","day","key","value")
);

-- CreateTable
CREATE TABLE "releases" (
    "project_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "releases_pkey" PRIMARY KEY ("project_id","version")
);

-- CreateTable
CREATE TABLE "issue_activities" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "issue_id" UUID NOT NULL,
    "project_id" TEXT NOT NULL,
    "user_id" TEXT,
    "kind" "issue_activity_kind" NOT NULL,
    "detail" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issue_activities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dropped_item_counts" (
    "project_id" TEXT NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "item_type" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "dropped_item_counts_pkey" PRIMARY KEY ("project_id","day","item_type")
);

-- CreateIndex
CREATE INDEX "issue_tag_hours_project_hour_idx" ON "issue_tag_hours"("project_id", "hour");

-- CreateIndex
CREATE INDEX "issue_tag_days_project_day_idx" ON "issue_tag_days"("project_id", "day");

-- CreateIndex
CREATE INDEX "releases_project_id_seq_idx" ON "releases"("project_id", "seq");

-- CreateIndex
CREATE INDEX "issue_activities_issue_id_created_at_idx" ON "issue_activities"("issue_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "projects_number_key" ON "projects"("number");

-- AddForeignKey
ALTER TABLE "issue_tag_hours" ADD CONSTRAINT "issue_tag_hours_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_tag_days" ADD CONSTRAINT "issue_tag_days_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "releases" ADD CONSTRAINT "releases_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_activities" ADD CONSTRAINT "issue_activities_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dropped_item_counts" ADD CONSTRAINT "dropped_item_counts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Each flush updates the current hour's and day's rows of its issues' tags:
-- room on the page keeps those updates HOT, as for the issue counters.
ALTER TABLE "issue_tag_hours" SET (fillfactor = 80);
ALTER TABLE "issue_tag_days" SET (fillfactor = 80);
