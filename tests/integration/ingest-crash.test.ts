import { spawn } from "node:child_process";
import http from "node:http";
import { expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { makeProject } from "@/tests/helpers/ingest";

/**
 * "An acknowledged event is never lost, even if the process is killed right
 * after answering": load the real handler in a child process, SIGKILL it in
 * the middle, and check that every event that got a 201 is in the database.
 */
it("keeps every acknowledged event when the process is killed mid-load", async () => {
  const p = await makeProject("crash");
  const child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/ingest-server.ts"], {
    env: { ...process.env, TELLTALE_LOG: "silent", INGEST_RATE_LIMIT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`server exited early (${code})`)));
  });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const acknowledged: string[] = [];
  let killed = false;
  const send = (i: number) =>
    new Promise<void>((resolve) => {
      const body = JSON.stringify({ level: "error", message: `crash ${i}`, projectId: p.id });
      const req = http.request(
        { port, host: "127.0.0.1", method: "POST", path: "/api/events", agent, headers: { authorization: `Bearer ${p.apiKey}`, "content-type": "application/json" } },
        (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => {
            if (res.statusCode === 201) acknowledged.push(JSON.parse(text).id);
            resolve();
          });
          res.on("error", () => resolve());
        },
      );
      req.on("error", () => resolve()); // the server died under this request
      req.end(body);
    });

  // 16 workers send until the server is killed, which happens after 200 acks.
  const workers = Array.from({ length: 16 }, async (_, w) => {
    for (let i = 0; !killed; i++) {
      await send(w * 100_000 + i);
      if (acknowledged.length >= 200 && !killed) {
        killed = true;
        child.kill("SIGKILL");
      }
    }
  });
  await Promise.all(workers);
  agent.destroy();
  await new Promise((r) => (child.exitCode !== null || child.signalCode ? r(null) : child.once("exit", r)));

  expect(acknowledged.length).toBeGreaterThanOrEqual(200);
  const stored = await prisma.event.findMany({ where: { projectId: p.id }, select: { id: true } });
  const storedIds = new Set(stored.map((r) => r.id));
  const lost = acknowledged.filter((id) => !storedIds.has(id));
  expect(lost).toEqual([]);
  // Unacknowledged requests may or may not have landed, never more than were in flight.
  expect(stored.length - acknowledged.length).toBeLessThanOrEqual(16);
}, 60_000);
