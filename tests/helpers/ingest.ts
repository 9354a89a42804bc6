import { POST as postEvent } from "@/app/api/events/route";
import { POST as postBatch } from "@/app/api/events/batch/route";
import { prisma } from "@/lib/db/client";
import { createProject, findOrCreateUserByEmail } from "@/lib/project-setup/create-project";

const noParams = { params: Promise.resolve({}) };

let seq = 0;
/** A unique owner + project for one test, so test files can run in parallel. */
export async function makeProject(label = "p") {
  const tag = `${Date.now().toString(36)}-${process.pid}-${++seq}`;
  const owner = await findOrCreateUserByEmail(`owner-${tag}@example.test`);
  const project = await createProject(owner.id, `${label}-${tag}`);
  return { ...project, ownerId: owner.id };
}

type Body = unknown;

export function ingestRequest(
  body: Body,
  opts: { key?: string | null; headers?: Record<string, string>; path?: string; raw?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json", ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  return new Request(`http://localhost${opts.path ?? "/api/events"}`, {
    method: "POST",
    headers,
    body: opts.raw ?? JSON.stringify(body),
  });
}

export async function sendEvent(key: string | null, body: Body, opts: Parameters<typeof ingestRequest>[1] = {}) {
  const res = await postEvent(ingestRequest(body, { ...opts, key }), noParams);
  return { res, status: res.status, body: await res.json() };
}

export async function sendBatch(key: string | null, body: Body, opts: Parameters<typeof ingestRequest>[1] = {}) {
  const res = await postBatch(ingestRequest(body, { ...opts, key, path: "/api/events/batch" }), noParams);
  return { res, status: res.status, body: await res.json() };
}

export function countEvents(projectId: string) {
  return prisma.event.count({ where: { projectId } });
}
