/**
 * PgBouncer in transaction mode in front of a PostgreSQL server, as a
 * managed host's pooler would be: each transaction (or single statement)
 * may run on a different server connection, so nothing may rely on session
 * state (named prepared statements, session SET, advisory locks held across
 * transactions, LISTEN, temp tables). `TEST_PGBOUNCER=1 npm test` runs the
 * whole suite through one (tests/setup/global-setup.ts).
 *
 * Needs Debian's pgbouncer (`apt-get install pgbouncer`, /usr/sbin/pgbouncer,
 * or PGBOUNCER_PATH). It refuses to run as root, so as root it is started
 * with `-u nobody`.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/tests/helpers/free-port";

export type PgBouncer = {
  /** DATABASE_URL through the pooler (same user, password and database). */
  url: string;
  port: number;
  stop(): Promise<void>;
};

export function pgBouncerPath(): string | null {
  const candidates = [process.env.PGBOUNCER_PATH, "/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"];
  return candidates.find((p): p is string => Boolean(p) && fs.existsSync(p!)) ?? null;
}


function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** Starts PgBouncer (transaction pooling) in front of `targetUrl`'s server. */
export async function startPgBouncer(targetUrl: string, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  const binary = pgBouncerPath();
  if (!binary) throw new Error("pgbouncer not found: apt-get install -y pgbouncer (or set PGBOUNCER_PATH).");
  const target = new URL(targetUrl);
  const user = decodeURIComponent(target.username || "postgres");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-pgbouncer-"));
  fs.chmodSync(dir, 0o755); // readable by the user it switches to
  const port = await freePort();
  fs.writeFileSync(path.join(dir, "users.txt"), `${quote(user)} ${quote(decodeURIComponent(target.password))}\n`, { mode: 0o644 });
  fs.writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      // Any database name the client asks for, on the same server.
      `* = host=${target.hostname} port=${target.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 20}`,
      "max_client_conn = 2000",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );

  const asRoot = process.getuid?.() === 0;
  const child = spawn(binary, [...(asRoot ? ["-u", "nobody"] : []), path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => {
    // Keep the start-up lines for an error message; drop the per-connection log.
    if (stderr.length < 20_000) stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });

  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      cleanup();
      throw new Error(`pgbouncer did not start on port ${port}:\n${stderr.split("\n").slice(-10).join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.href,
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM"); // immediate shutdown: clients are gone by now
        await exited;
      }
      cleanup();
    },
  };
}
