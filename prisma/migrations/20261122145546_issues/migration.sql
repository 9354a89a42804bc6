-- CreateEnum
CREATE TYPE "issue_status" AS ENUM ('open', 'resolved', 'ignored');

-- DropIndex
DROP INDEX "events_project_received_idx";

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "issue_id" UUID,
ADD COLUMN     "occurred_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "issues" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" TEXT NOT NULL,
    "fingerprint_hash" TEXT NOT NULL,
    "level" "event_level" NOT NULL,
    "title" TEXT NOT NULL,
    "sample_message" TEXT NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL,
    "last_seen" TIMESTAMPTZ(3) NOT NULL,
    "count" BIGINT NOT NULL,
    "status" "issue_status" NOT NULL DEFAULT 'open',
    "status_changed_at" TIMESTAMPTZ(3),
    "regressed_at" TIMESTAMPTZ(3),
    "reopened_txid" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "issues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "issue_counts" (
    "issue_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "level" "event_level" NOT NULL,
    "project_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_counts_pkey" PRIMARY KEY ("issue_id","minute","level")
);

-- CreateTable
CREATE TABLE "issue_hours" (
    "issue_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "level" "event_level" NOT NULL,
    "project_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_hours_pkey" PRIMARY KEY ("issue_id","hour","level")
);

-- CreateIndex
CREATE INDEX "issues_project_last_seen_idx" ON "issues"("project_id", "last_seen" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "issues_project_fingerprint_key" ON "issues"("project_id", "fingerprint_hash");

-- CreateIndex
CREATE INDEX "issue_counts_project_minute_idx" ON "issue_counts"("project_id", "minute");

-- CreateIndex
CREATE INDEX "issue_hours_project_hour_idx" ON "issue_hours"("project_id", "hour");

-- CreateIndex
CREATE INDEX "events_project_occurred_idx" ON "events"("project_id" ASC, "occurred_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "events_issue_occurred_idx" ON "events"("issue_id" ASC, "occurred_at" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issues" ADD CONSTRAINT "issues_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_counts" ADD CONSTRAINT "issue_counts_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "issue_hours" ADD CONSTRAINT "issue_hours_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;
