-- CreateEnum
CREATE TYPE "alert_trigger" AS ENUM ('new_issue', 'regression', 'spike');

-- CreateEnum
CREATE TYPE "alert_spike_scope" AS ENUM ('issue', 'project');

-- CreateEnum
CREATE TYPE "alert_channel" AS ENUM ('email', 'webhook');

-- CreateEnum
CREATE TYPE "webhook_format" AS ENUM ('json', 'slack', 'discord');

-- CreateEnum
CREATE TYPE "alert_delivery_kind" AS ENUM ('new_issue', 'regression', 'spike', 'digest', 'test');

-- CreateEnum
CREATE TYPE "alert_delivery_status" AS ENUM ('pending', 'sending', 'sent', 'failed', 'suppressed', 'digested', 'cancelled');

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" TEXT NOT NULL,
    "project_id" TEXT NOT NULL,
    "trigger" "alert_trigger" NOT NULL,
    "min_level" "event_level" NOT NULL,
    "spike_count" INTEGER,
    "spike_minutes" INTEGER,
    "spike_scope" "alert_spike_scope",
    "channel" "alert_channel" NOT NULL,
    "email_user_ids" TEXT[],
    "webhook_url" TEXT,
    "webhook_format" "webhook_format",
    "webhook_secret" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" TEXT NOT NULL,
    "rule_id" TEXT,
    "kind" "alert_delivery_kind" NOT NULL,
    "issue_id" UUID,
    "detail" JSONB,
    "status" "alert_delivery_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_attempt_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "target" TEXT,
    "answer" TEXT,
    "digest_id" UUID,

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_cooldowns" (
    "rule_id" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "alert_cooldowns_pkey" PRIMARY KEY ("rule_id","subject")
);

-- CreateIndex
CREATE INDEX "alert_rules_project_id_trigger_idx" ON "alert_rules"("project_id", "trigger");

-- CreateIndex
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_deliveries_project_created_idx" ON "alert_deliveries"("project_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "alert_deliveries_rule_id_idx" ON "alert_deliveries"("rule_id");

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_cooldowns" ADD CONSTRAINT "alert_cooldowns_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;
