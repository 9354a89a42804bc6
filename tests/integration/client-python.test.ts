/**
 * The Python `logging.Handler` from docs/clients.md, run as written with the
 * system `python3` against a real Telltale server: the docs' snippet is
 * proven, not just shown.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startIngestHttp, type IngestHttp } from "@/tests/helpers/ingest-http";
import { makeProject } from "@/tests/helpers/ingest";

/** The ```python blocks of the docs' "## Python" section, in order. */
function pythonSnippets(): string[] {
  const docs = fs.readFileSync(path.resolve(__dirname, "../../docs/clients.md"), "utf8");
  const section = docs.split(/^## /m).find((s) => s.startsWith("Python\n"));
  if (!section) throw new Error('docs/clients.md has no "## Python" section');
  return Array.from(section.matchAll(/```python\n([\s\S]*?)```/g), (m) => m[1]!);
}

function runPython(script: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [script], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

let server: IngestHttp;
beforeAll(async () => {
  server = await startIngestHttp();
});
afterAll(() => server.close());

it("the docs' Python handler stores levels, messages and a traceback", async () => {
  const project = await makeProject("python");
  const [handler, usage] = pythonSnippets();
  expect(handler).toMatch(/class TelltaleHandler\(logging\.Handler\)/);
  expect(usage).toMatch(/addHandler\(TelltaleHandler/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-python-"));
  const script = path.join(dir, "app.py");
  fs.writeFileSync(
    script,
    `${handler}\n${usage}\n` +
      [
        "log = logging.getLogger('shop')",
        "log.setLevel(logging.DEBUG)",
        "log.info('order %s placed', 'o-1')",
        "log.critical('database gone')",
        "try:",
        "    {}['missing']",
        "except KeyError:",
        "    log.exception('lookup failed')",
        "log.debug('not sent: below the handler level')",
      ].join("\n") +
      "\n",
  );
  const before = Date.now();
  const run = await runPython(script, { TELLTALE_URL: server.url, TELLTALE_API_KEY: project.apiKey, TELLTALE_PROJECT_ID: project.id });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(run).toEqual({ code: 0, stderr: "" });

  const rows = await prisma.event.findMany({ where: { projectId: project.id }, select: { level: true, message: true, context: true, timestamp: true } });
  const byMessage = new Map(rows.map((r) => [r.message, r]));
  expect([...byMessage.keys()].sort()).toEqual(["database gone", "lookup failed", "order o-1 placed", "stock low: A-1"]);
  expect(byMessage.get("stock low: A-1")).toMatchObject({ level: "warn", context: { logger: "shop", level: "WARNING" } });
  expect(byMessage.get("order o-1 placed")).toMatchObject({ level: "info", context: { level: "INFO" } });
  expect(byMessage.get("database gone")).toMatchObject({ level: "error", context: { level: "CRITICAL" } });
  const failed = byMessage.get("lookup failed")!;
  expect(failed.level).toBe("error");
  expect((failed.context as { traceback: string }).traceback).toMatch(/^Traceback \(most recent call last\):\n[\s\S]*KeyError: 'missing'$/);
  for (const row of rows) expect(row.timestamp!.getTime()).toBeGreaterThanOrEqual(before - 1_000);
});
