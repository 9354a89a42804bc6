import { dbPool } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";

/** Readiness: the database answers a trivial query within `timeoutMs`. */
export async function checkDatabaseReady(timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      dbPool().query("SELECT 1"),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("readiness check timed out")), timeoutMs);
      }),
    ]);
  } catch {
    throw errors.serviceUnavailable("The database is not answering.");
  } finally {
    clearTimeout(timer);
  }
}
