-- AlterEnum
ALTER TYPE "alert_delivery_kind" ADD VALUE 'webhook_paused';

-- AlterEnum
ALTER TYPE "alert_delivery_status" ADD VALUE 'logged';

-- AlterTable
ALTER TABLE "alert_deliveries" ADD COLUMN     "admitted_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "alert_rules" ADD COLUMN     "failing_since" TIMESTAMPTZ(3),
ADD COLUMN     "failures_in_row" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "pause_reason" TEXT,
ADD COLUMN     "paused_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "job_leases" (
    "job" TEXT NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "leased_until" TIMESTAMPTZ(3),
    "holder" TEXT,
    "last_started_at" TIMESTAMPTZ(3),
    "last_finished_at" TIMESTAMPTZ(3),
    "last_outcome" JSONB,

    CONSTRAINT "job_leases_pkey" PRIMARY KEY ("job")
);

-- CreateIndex
CREATE INDEX "alert_deliveries_created_at_idx" ON "alert_deliveries"("created_at");
