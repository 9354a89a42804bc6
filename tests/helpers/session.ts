import { randomUUID } from "node:crypto";
import { prisma } from "@/lib/db/client";
import { createProject } from "@/lib/project-setup/create-project";
import { listenSmtpSink } from "@/tests/helpers/smtp-sink";

let seq = 0;

/** A unique address per call, so test files can run in parallel on one database. */
export function uniqueEmail(label = "user"): string {
  return `${label}-${Date.now().toString(36)}-${process.pid}-${++seq}@example.test`;
}

export type TestUser = { id: string; email: string; name: string | null };

/**
 * A user with a database session, as Auth.js would have made it after a
 * magic-link sign-in; `cookie` is the Cookie header that carries it.
 */
export async function createUserWithSession(
  email = uniqueEmail(),
  opts: { expires?: Date; secureCookie?: boolean } = {},
): Promise<{ user: TestUser; cookie: string; sessionToken: string }> {
  const normalized = email.trim().toLowerCase();
  const user = await prisma.user.upsert({
    where: { email: normalized },
    update: {},
    create: { email: normalized, emailVerified: new Date() },
    select: { id: true, email: true, name: true },
  });
  const sessionToken = randomUUID();
  await prisma.session.create({
    data: { sessionToken, userId: user.id, expires: opts.expires ?? new Date(Date.now() + 24 * 3600 * 1000) },
  });
  const name = opts.secureCookie ? "__Secure-authjs.session-token" : "authjs.session-token";
  return { user, cookie: `${name}=${sessionToken}`, sessionToken };
}

/** A project with a signed-in owner and member, and a signed-in outsider: the authorization matrix. */
export async function createTeam(label = "team") {
  const owner = await createUserWithSession(uniqueEmail(`${label}-owner`));
  const member = await createUserWithSession(uniqueEmail(`${label}-member`));
  const outsider = await createUserWithSession(uniqueEmail(`${label}-outsider`));
  const project = await createProject(owner.user.id, `${label}-${randomUUID()}`);
  await prisma.membership.create({ data: { projectId: project.id, userId: member.user.id, role: "member" } });
  return { owner, member, outsider, project };
}

export const ORIGIN = "http://localhost:3000";

/** A request to this service as the dashboard's own pages would send it. */
export function apiRequest(
  path: string,
  opts: { method?: string; cookie?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Request {
  const method = opts.method ?? "GET";
  const headers: Record<string, string> = { host: "localhost:3000", ...(opts.headers ?? {}) };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (method !== "GET" && method !== "HEAD" && !("origin" in headers)) headers.origin = ORIGIN;
  if (opts.body !== undefined) headers["content-type"] ??= "application/json";
  return new Request(`${ORIGIN}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body),
  });
}

type Handler<P> = (request: Request, ctx: { params: Promise<P> }) => Promise<Response>;

/** Calls a route handler as Next.js would; parses a JSON answer. */
export async function callRoute<P>(handler: Handler<P>, request: Request, params: P = {} as P) {
  const res = await handler(request, { params: Promise.resolve(params) });
  const text = await res.text();
  let body: any = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.status, body, res };
}

// ---------------------------------------------------------------------------
// A local SMTP sink for the sign-in and invitation mails.

export type SentMail = { to: string[]; raw: string; text: string };

/** Undoes quoted-printable soft breaks and escapes (nodemailer wraps long lines). */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startSmtpSink() {
  const mails: SentMail[] = [];
  const waiters: (() => void)[] = [];
  const { port, close } = await listenSmtpSink(({ to, raw }) => {
    mails.push({ to, raw, text: decodeQuotedPrintable(raw) });
    waiters.splice(0).forEach((wake) => wake());
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The latest mail to `to`, waiting up to `timeoutMs` for it. */
    /** The latest mail to `to` (that `matching` accepts), waiting up to `timeoutMs` for one. */
    async mailTo(to: string, timeoutMs = 5000, matching: (mail: SentMail) => boolean = () => true): Promise<SentMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mails.filter((m) => m.to.includes(to) && matching(m)).at(-1);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close,
  };
}
