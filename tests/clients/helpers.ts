/**
 * What the real-client tests share: the production server's address, a
 * project with its DSN and keys, child programs run as their users run them,
 * a recording proxy in front of the server, and the stored rows of one
 * project (read with Prisma on the run's database, scoped to the project).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync, inflateSync } from "node:zlib";
import { inject, vi } from "vitest";
import { prisma } from "@/lib/db/client";
import { projectDsn } from "@/lib/keys/dsn";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
import { createProject, findOrCreateUserByEmail } from "@/lib/project-setup/create-project";

export const REPO = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
export const FIXTURES = `${REPO}/tests/fixtures/clients`;

/** The production server's origin (tests/clients/server-setup.ts). */
export const serverUrl = (): string => inject("clientsServer");

export type ClientProject = { id: string; number: number; apiKey: string; publicKey: string; dsn: string };

/** A new owner and project, with the DSN a user would copy from the Projects page. */
export async function clientProject(label: string, origin = serverUrl()): Promise<ClientProject> {
  const tag = `${label}-${randomUUID().slice(0, 8)}`;
  const owner = await findOrCreateUserByEmail(`owner-${tag}@example.test`);
  const project = await createProject(owner.id, tag);
  const publicKey = (await readOrCreatePublicKey(project.id))!;
  const { number } = await prisma.project.findUniqueOrThrow({ where: { id: project.id }, select: { number: true } });
  return { id: project.id, number, apiKey: project.apiKey, publicKey, dsn: projectDsn(origin, publicKey, number) };
}

export type StoredEvent = {
  id: string;
  issueId: string | null;
  level: string;
  message: string;
  context: Record<string, any>;
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: Record<string, string> | null;
  timestamp: Date | null;
};

/** The project's events, oldest first. */
export async function storedEvents(projectId: string): Promise<StoredEvent[]> {
  const rows = await prisma.event.findMany({
    where: { projectId },
    orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
    select: { id: true, issueId: true, level: true, message: true, context: true, release: true, environment: true, tags: true, user: true, timestamp: true },
  });
  return rows.map((r) => ({ ...r, context: (r.context ?? {}) as Record<string, any>, tags: r.tags as StoredEvent["tags"], user: r.user as StoredEvent["user"] }));
}

/** Waits (polling the database) until the project has at least `count` events, and returns them. */
export async function waitForEvents(projectId: string, count: number, timeout = 60_000): Promise<StoredEvent[]> {
  let events: StoredEvent[] = [];
  await vi.waitFor(
    async () => {
      events = await storedEvents(projectId);
      if (events.length < count) throw new Error(`${events.length} of ${count} events stored so far: ${events.map((e) => e.message).join(" | ")}`);
    },
    { timeout, interval: 200 },
  );
  return events;
}

/** One stored event by its exact message. */
export function byMessage(events: StoredEvent[], message: string): StoredEvent {
  const found = events.filter((e) => e.message === message);
  if (found.length !== 1) throw new Error(`expected one event "${message}", found ${found.length} among: ${events.map((e) => e.message).join(" | ")}`);
  return found[0]!;
}

/**
 * The environment of a user's program: no variables of this test run (its
 * database URL and secrets, npm's own), only what a shell has and `extra`.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "LANG", "TMPDIR", "TERM", "USER", "NODE_EXTRA_CA_CERTS"];
  const env = {} as NodeJS.ProcessEnv;
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

export type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs a program to its end (killed after `timeoutMs`: a hang guard), with its output. */
export function runProgram(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? REPO, env: options.env ?? userEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The last line of a program's stdout, as JSON: the fixture programs print what they saw there. */
export function lastJsonLine<T>(run: Run): T {
  const line = run.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as T;
  } catch {
    throw new Error(`the program printed no JSON result (exit ${run.code ?? run.signal}).\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-4000)}`);
  }
}

export type ProxiedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (compressed when the client compressed it). */
  body: Buffer;
  /** The status the client was given. */
  status: number;
};

export type Proxy = {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
};

/** The envelope's text, decoded as the server would (gzip, deflate). */
export function envelopeText(request: ProxiedRequest): string {
  const encoding = request.headers["content-encoding"];
  if (encoding === "gzip") return gunzipSync(request.body).toString("utf8");
  if (encoding === "deflate") return inflateSync(request.body).toString("utf8");
  return request.body.toString("utf8");
}

/** The item types of an envelope, in order. */
export function envelopeItemTypes(request: ProxiedRequest): string[] {
  return [...envelopeText(request).matchAll(/^\{"type":"([a-z_]+)"/gm)].map((m) => m[1]!);
}

/**
 * A recording HTTP proxy in front of the server: each request is forwarded
 * as sent and its answer returned, unless `intercept` answers it itself
 * (return the status and headers) or wants it forwarded more than once.
 */
export async function startProxy(
  target: string,
  intercept: (request: Omit<ProxiedRequest, "status">, index: number) => { status: number; headers?: Record<string, string>; body?: string } | { forwardTimes: number } | null = () => null,
): Promise<Proxy> {
  const requests: ProxiedRequest[] = [];
  const forward = async (req: Omit<ProxiedRequest, "status">) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || ["host", "connection", "content-length", "transfer-encoding", "keep-alive"].includes(name)) continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const res = await fetch(`${target}${req.url}`, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : new Uint8Array(req.body), redirect: "manual" });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const seen = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks) };
      const index = requests.length;
      const record: ProxiedRequest = { ...seen, status: 0 };
      requests.push(record);
      try {
        const decision = intercept(seen, index);
        if (decision && "status" in decision) {
          record.status = decision.status;
          res.writeHead(decision.status, { "content-type": "application/json", ...decision.headers }).end(decision.body ?? "");
          return;
        }
        let answer = await forward(seen);
        for (let i = 1; i < (decision?.forwardTimes ?? 1); i++) answer = await forward(seen);
        record.status = answer.status;
        const headers: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name)) headers[name] = value;
        });
        res.writeHead(answer.status, headers).end(answer.body);
      } catch (error) {
        record.status = 502;
        res.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Node.js running a TypeScript or JavaScript program of the fixtures, as `node --import tsx` would. */
export function runNodeProgram(file: string, env: Record<string, string>, options: { cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  const args = /\.tsx?$/.test(file) ? ["--import", "tsx", file] : [file];
  return runProgram(process.execPath, args, { cwd: options.cwd, env: userEnv(env), timeoutMs: options.timeoutMs });
}
