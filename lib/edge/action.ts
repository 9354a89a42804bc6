/**
 * The server-action wrapper: what the route wrappers do for API routes,
 * for the dashboard's forms. An action declares its input schema (and a role,
 * for actions about one project) and calls one lib function:
 *
 *   export const rotateKeyAction = projectAction({ role: "owner" }, async ({ access }) => { ... });
 *
 * Input arrives as FormData (a form) or a plain object (a bound call); it is
 * parsed with zod, the session is checked (no session: to the sign-in page),
 * the project access resolved once, and an AppError becomes
 * `{ ok: false, error }` for the form to show.
 */
import { redirect } from "next/navigation";
import { z } from "zod";
import { currentUser, type SessionUser } from "@/lib/edge/caller";
import { signInPath } from "@/lib/auth/safe-callback";
import { AppError } from "@/lib/http/errors";
import { formObject, idSchema, zodProblems } from "@/lib/http/input";
import { resolveProjectAccess, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";

/**
 * What a dashboard server action answers to the form that called it;
 * `shown` is a value to show once with a copy button (a rotated key).
 */
export type ActionState = { ok: true; message?: string; shown?: { label: string; value: string } } | { ok: false; error: string } | null;
export type ActionFailure = { ok: false; error: string };
export type ActionInput = FormData | Record<string, string>;

/** A lib failure as a message for the form; anything else (redirects, bugs) propagates. */
export function actionFailure(error: unknown): ActionFailure {
  if (error instanceof AppError) {
    const detail = error.errors?.map((e) => e.message).join(" ");
    return { ok: false, error: detail || error.message };
  }
  throw error;
}

function parseActionInput<S extends z.ZodType>(schema: S, input: ActionInput | undefined): { ok: true; value: z.output<S> } | ActionFailure {
  const result = schema.safeParse(formObject(input ?? {}));
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: zodProblems(result.error.issues).map((p) => p.message).join(" ") };
}

async function requireActionUser(): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(signInPath());
  return user;
}

type Action<R> = (previous: unknown, input?: ActionInput) => Promise<R | ActionFailure>;

/** An action for a signed-in person; `input` validates the form's fields. */
export function sessionAction<S extends z.ZodType, R>(input: S, fn: (ctx: { user: SessionUser; input: z.output<S> }) => Promise<R>): Action<R> {
  return async (_previous, raw) => {
    const user = await requireActionUser();
    const parsed = parseActionInput(input, raw);
    if (!parsed.ok) return parsed;
    try {
      return await fn({ user, input: parsed.value });
    } catch (error) {
      return actionFailure(error);
    }
  };
}

const projectField = z.object({ projectId: idSchema });

/**
 * An action about one project: the form carries `projectId`; the caller's
 * access is resolved once (a project they are not in answers like a missing
 * one; `role: "owner"` refuses members).
 */
export function projectAction<S extends z.ZodObject = z.ZodObject<Record<never, never>>, R = ActionState>(
  options: { role: ProjectRole; input?: S },
  fn: (ctx: { user: SessionUser; access: ProjectAccess; input: z.output<S> }) => Promise<R>,
): Action<R> {
  const schema = projectField.extend((options.input ?? z.object({})).shape);
  return async (_previous, raw) => {
    const user = await requireActionUser();
    const parsed = parseActionInput(schema, raw);
    if (!parsed.ok) return parsed;
    try {
      const access = await resolveProjectAccess(user.id, parsed.value.projectId, options.role);
      return await fn({ user, access, input: parsed.value as z.output<S> });
    } catch (error) {
      return actionFailure(error);
    }
  };
}
