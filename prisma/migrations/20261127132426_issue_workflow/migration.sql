-- Issue workflow: the ingest statement marks an ignored issue it opened again
-- (unignored_txid, as reopened_txid marks regressions) so that it logs the
-- change; the background job finds the ignores whose time ran out by index.
-- AlterTable
ALTER TABLE "issues" ADD COLUMN     "unignored_txid" BIGINT;

-- CreateIndex
CREATE INDEX "issues_ignored_until_idx" ON "issues"("ignored_until");
