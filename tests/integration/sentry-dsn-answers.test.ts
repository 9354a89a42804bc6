/**
 * What a Sentry SDK's user reads when the DSN is wrong: the Sentry routes'
 * refusals speak of the DSN (its public key, its project number), not of the
 * native routes' API key and projectId, which such a user never had.
 */
import { expect, it } from "vitest";
import { POST as postEnvelope } from "@/app/api/[projectNumber]/envelope/route";
import { prisma } from "@/lib/db/client";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
import { makeProject } from "@/tests/helpers/ingest";

async function sentryProject(label: string) {
  const p = await makeProject(label);
  const publicKey = (await readOrCreatePublicKey(p.id))!;
  const { number } = await prisma.project.findUniqueOrThrow({ where: { id: p.id }, select: { number: true } });
  return { ...p, publicKey, number };
}

async function send(number: number, query: string, body: string) {
  const request = new Request(`http://localhost/api/${number}/envelope/${query}`, { method: "POST", body });
  const res = await postEnvelope(request, { params: Promise.resolve({ projectNumber: String(number) }) });
  return { status: res.status, body: (await res.json()) as { code: string; detail: string } };
}

const envelope = (header: Record<string, unknown> = {}) => [JSON.stringify(header), '{"type":"event"}', '{"message":"hello","level":"error"}'].join("\n");

it("a key of another project, a dsn of another project and an unknown key are refused in the DSN's words", async () => {
  const mine = await sentryProject("dsn-answers-mine");
  const theirs = await sentryProject("dsn-answers-theirs");

  const otherKey = await send(mine.number, `?sentry_key=${theirs.publicKey}`, envelope());
  expect(otherKey.status).toBe(403);
  expect(otherKey.body.code).toBe("project_mismatch");
  expect(otherKey.body.detail).toMatch(/DSN's public key belongs to another project than the number in the URL/);
  expect(otherKey.body.detail).not.toMatch(/projectId|API key/);

  // A tunnel's envelope whose dsn names another project number than the URL.
  const otherNumber = await send(mine.number, "", envelope({ dsn: `http://${mine.publicKey}@localhost/${theirs.number}` }));
  expect([otherNumber.status, otherNumber.body.code]).toEqual([403, "project_mismatch"]);
  expect(otherNumber.body.detail).toMatch(/DSN/);

  const unknown = await send(mine.number, `?sentry_key=${"A".repeat(32)}`, envelope());
  expect([unknown.status, unknown.body.code]).toEqual([401, "invalid_api_key"]);
  expect(unknown.body.detail).toBe("The DSN's public key is not valid. It may have been rotated; copy the DSN again from the Projects page.");
  expect(await prisma.event.count({ where: { projectId: { in: [mine.id, theirs.id] } } })).toBe(0);
});
