-- CreateTable
CREATE TABLE "issue_days" (
    "issue_id" UUID NOT NULL,
    "day" TIMESTAMPTZ(3) NOT NULL,
    "level" "event_level" NOT NULL,
    "project_id" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "issue_days_pkey" PRIMARY KEY ("issue_id","day","level")
);

-- CreateIndex
CREATE INDEX "issue_days_project_day_idx" ON "issue_days"("project_id", "day");

-- AddForeignKey
ALTER TABLE "issue_days" ADD CONSTRAINT "issue_days_issue_id_fkey" FOREIGN KEY ("issue_id") REFERENCES "issues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the days of what the hourly counts already hold.
INSERT INTO "issue_days" ("issue_id", "day", "level", "project_id", "count")
SELECT "issue_id", date_bin('1 day', "hour", TIMESTAMPTZ 'epoch'), "level", "project_id", sum("count")::int
FROM "issue_hours"
GROUP BY 1, 2, 3, 4;
