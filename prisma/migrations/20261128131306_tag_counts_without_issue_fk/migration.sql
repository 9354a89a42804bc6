-- DropForeignKey
ALTER TABLE "issue_tag_days" DROP CONSTRAINT "issue_tag_days_issue_id_fkey";

-- DropForeignKey
ALTER TABLE "issue_tag_hours" DROP CONSTRAINT "issue_tag_hours_issue_id_fkey";
