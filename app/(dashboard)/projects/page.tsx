import type { Metadata } from "next";
import Link from "next/link";
import { ApiKeyField } from "@/components/api-key-field";
import { buttonClass } from "@/components/button";
import { RotateKeyDialog } from "@/components/rotate-key-dialog";
import { CreateProjectForm } from "@/components/create-project-form";
import { LocalTime } from "@/components/local-time";
import { RoleBadge } from "@/components/role-badge";
import { ActionButton } from "@/components/action-button";
import { listPendingInvitationsForUser } from "@/lib/invitations/service";
import { maskApiKey } from "@/lib/keys/format";
import { DsnPanel } from "@/components/dsn-panel";
import { readProjectDsns } from "@/lib/projects/dsn";
import { listProjectsForUser } from "@/lib/projects/service";
import { requireUser, siteOrigin } from "@/app/(dashboard)/session";
import { acceptInvitationByIdAction, createProjectAction, revealKeyAction, rotateKeyAction } from "./actions";

export const metadata: Metadata = { title: "Projects" };

const numberFormat = new Intl.NumberFormat("en-US");

export default async function ProjectsPage() {
  const user = await requireUser("/projects");
  const [projects, invitations, origin] = await Promise.all([listProjectsForUser(user.id), listPendingInvitationsForUser(user), siteOrigin()]);
  // The DSN's key only sends events, so unlike the API key it is in the page.
  const dsns = await readProjectDsns(
    projects.map((p) => p.id),
    origin,
  );
  // Only the last four characters of each key leave the server with the page.
  const masks = projects.map((p) => (p.keyLast4 ? maskApiKey(p.keyLast4) : null));

  return (
    <div className="space-y-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Projects</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Each project has its own API key, its own DSN for Sentry SDKs, and its own events.</p>
      </div>

      {invitations.length > 0 && (
        <section aria-labelledby="invitations-heading" className="space-y-2 rounded-xl border border-indigo-200 bg-indigo-50 p-4 dark:border-indigo-900 dark:bg-indigo-950/40">
          <h2 id="invitations-heading" className="text-base font-semibold">
            Invitations for you
          </h2>
          <ul className="divide-y divide-indigo-200/70 dark:divide-indigo-900">
            {invitations.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <p className="text-sm">
                  <strong>{invitation.invitedBy.name ?? invitation.invitedBy.email}</strong> invited you to{" "}
                  <strong>{invitation.projectName}</strong> as {invitation.role === "owner" ? "an owner" : "a member"}.
                </p>
                <ActionButton
                  action={acceptInvitationByIdAction}
                  fields={{ invitationId: invitation.id }}
                  label="Accept"
                  ariaLabel={`Accept invitation to ${invitation.projectName}`}
                />
              </li>
            ))}
          </ul>
        </section>
      )}

      <section aria-labelledby="new-project" className="rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900">
        <h2 id="new-project" className="mb-3 text-base font-semibold">
          New project
        </h2>
        <CreateProjectForm action={createProjectAction} />
      </section>

      {projects.length === 0 ? (
        <EmptyState />
      ) : (
        <section aria-labelledby="your-projects" className="space-y-3">
          <h2 id="your-projects" className="text-base font-semibold">
            Your projects <span className="font-normal text-zinc-500">({projects.length})</span>
          </h2>
          <ul className="space-y-3">
            {projects.map((project, i) => (
              <li key={project.id}>
                <article
                  aria-label={project.name}
                  className="space-y-4 rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900"
                >
                  <div className="flex flex-wrap items-start justify-between gap-3">
                    <div className="min-w-0">
                      <h3 className="flex flex-wrap items-center gap-2 text-lg font-semibold">
                        <Link href={`/projects/${project.id}`} className="truncate hover:underline">
                          {project.name}
                        </Link>
                        <RoleBadge role={project.role} />
                      </h3>
                      <p className="mt-0.5 text-sm text-zinc-500 dark:text-zinc-400">
                        <span className="tabular-nums">{numberFormat.format(project.eventCount)}</span>{" "}
                        {project.eventCount === 1 ? "event" : "events"} · created <LocalTime iso={project.createdAt} format="date" /> ·{" "}
                        <span className="font-mono text-xs">{project.id}</span>
                      </p>
                    </div>
                    <div className="flex gap-2">
                      <Link href={`/projects/${project.id}`} className={buttonClass("primary", "sm")}>
                        Issues
                      </Link>
                      <Link href={`/projects/${project.id}/events`} className={buttonClass("secondary", "sm")}>
                        Events
                      </Link>
                      <Link href={`/projects/${project.id}/settings`} className={buttonClass("secondary", "sm")}>
                        Team & settings
                      </Link>
                    </div>
                  </div>
                  <div className="space-y-1.5">
                    <div className="flex items-center justify-between gap-2">
                      <span className="text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">API key</span>
                      {project.role === "owner" && (
                        <RotateKeyDialog projectId={project.id} projectName={project.name} kind="secret" action={rotateKeyAction} />
                      )}
                    </div>
                    {masks[i] ? (
                      <ApiKeyField key={masks[i]} projectName={project.name} masked={masks[i]} reveal={revealKeyAction.bind(null, null, { projectId: project.id })} />
                    ) : (
                      <p className="text-sm text-zinc-500">No active key. An owner can create one with Rotate.</p>
                    )}
                  </div>
                  <DsnPanel
                    projectName={project.name}
                    dsn={dsns.get(project.id) ?? null}
                    rotate={project.role === "owner" && <RotateKeyDialog projectId={project.id} projectName={project.name} kind="public" action={rotateKeyAction} />}
                  />
                </article>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function EmptyState() {
  return (
    <section aria-labelledby="get-started" className="rounded-xl border border-dashed border-zinc-300 p-6 dark:border-zinc-700">
      <h2 id="get-started" className="text-base font-semibold">
        Get started in three steps
      </h2>
      <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm text-zinc-600 dark:text-zinc-400">
        <li>Create a project above: it comes with its own API key and a DSN for Sentry SDKs.</li>
        <li>
          Send an event from your server: <code className="font-mono text-xs">POST /api/events</code> with the header{" "}
          <code className="font-mono text-xs">Authorization: Bearer &lt;API key&gt;</code>. The project’s page has a ready-to-run curl command.
        </li>
        <li>Invite your teammates from the project’s Team & settings page.</li>
      </ol>
      <p className="mt-3 text-sm text-zinc-600 dark:text-zinc-400">
        Invited to someone else’s project? Open the link in the invitation email to join it.
      </p>
    </section>
  );
}
