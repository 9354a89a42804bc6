/**
 * Test helper run as a separate process: tries to own the embedded data folder
 * given as argv[2]. Prints {"ok":true,"url"} and keeps serving until stdin
 * closes, or prints {"ok":false,"name","message"} and exits 3.
 */
import { startEmbeddedPostgres } from "@/tools/db/embedded";

async function main() {
  try {
    const db = await startEmbeddedPostgres({ dataDir: process.argv[2] });
    process.stdout.write(`${JSON.stringify({ ok: true, url: db.url, pid: process.pid })}\n`);
    process.stdin.resume();
    process.stdin.on("end", () => void db.stop().then(() => process.exit(0)));
  } catch (error) {
    const e = error as Error;
    process.stdout.write(`${JSON.stringify({ ok: false, name: e.name, message: e.message })}\n`);
    process.exit(3);
  }
}

void main();
