-- Compress new large values with lz4 rather than pglz where the server has
-- lz4 (PostgreSQL built --with-lz4, as Debian's, Ubuntu's and the official
-- images are; the embedded PGlite is not, and keeps pglz). pglz took an
-- eighth of the CPU of ingesting SDK-sized events (their context), and of the
-- tag count backlog's arrays. Values already stored keep their compression;
-- PostgreSQL reads both.
DO $$
BEGIN
  IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
    ALTER TABLE "events" ALTER COLUMN "context" SET COMPRESSION lz4;
    ALTER TABLE "tag_count_backlog"
      ALTER COLUMN "issue_ids" SET COMPRESSION lz4,
      ALTER COLUMN "project_ids" SET COMPRESSION lz4,
      ALTER COLUMN "hours" SET COMPRESSION lz4,
      ALTER COLUMN "keys" SET COMPRESSION lz4,
      ALTER COLUMN "tag_values" SET COMPRESSION lz4,
      ALTER COLUMN "counts" SET COMPRESSION lz4;
  END IF;
END $$;
