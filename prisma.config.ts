import { defineConfig } from "prisma/config";

// DATABASE_URL is optional: `prisma generate` needs no database, and with no
// URL the app uses the embedded PostgreSQL (see tools/db/embedded.ts).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
