-- Every event updates its issue's row (count, last_seen). With an index on
-- last_seen, each of those updates wrote a new entry into every index of
-- the table (no HOT update): the busiest rows of the database bloated all
-- three indexes, and each upsert's unique-index probe walked the dead
-- entries. Nothing reads through this index that cannot read elsewhere
-- (a project's last event: the events' own index, lib/projects/health.ts).
DROP INDEX "issues_project_last_seen_idx";

-- Room on each page for the new versions of its rows, so those updates stay
-- on the page (HOT) between vacuums. Applies to pages written from now on.
ALTER TABLE "issues" SET (fillfactor = 70);

-- The same for the counters: a minute's, an hour's and a day's row of a busy
-- issue is updated by every flush while its bucket is current.
ALTER TABLE "issue_counts" SET (fillfactor = 80);
ALTER TABLE "issue_hours" SET (fillfactor = 80);
ALTER TABLE "issue_days" SET (fillfactor = 80);
