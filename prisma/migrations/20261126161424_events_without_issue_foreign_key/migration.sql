-- The foreign key from events to issues checked every stored event against
-- its issue (a lookup and a row lock per event): 15-20% of PostgreSQL's CPU
-- on batches of 100 (npm run bench:profile with BENCH_BATCH=100: 5.2-5.9 ms
-- per batch with it, 4.5 without). It guarded nothing the statement does not
-- already ensure: an event's issue_id comes from the issue the same statement
-- upserts, in the same transaction (lib/events/store.ts), and an issue is
-- only deleted with its project, whose foreign key deletes the events too.
ALTER TABLE "events" DROP CONSTRAINT "events_issue_id_fkey";
