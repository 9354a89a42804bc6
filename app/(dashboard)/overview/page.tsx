import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/button";
import { ProjectHealthLine } from "@/components/project-health";
import { RoleBadge } from "@/components/role-badge";
import { SummaryPanel } from "@/components/summary-panel";
import { projectHealthForUser } from "@/lib/projects/health";
import { listProjectsForUser } from "@/lib/projects/service";
import { requireUser } from "@/app/(dashboard)/session";
import { plural } from "@/lib/text/plural";

export const metadata: Metadata = { title: "Overview" };

/** Everything the user can see at once: how each project did in the last day, and an AI summary across them. */
export default async function OverviewPage() {
  const user = await requireUser("/overview");
  const [projects, health] = await Promise.all([listProjectsForUser(user.id), projectHealthForUser(user.id)]);
  const renderedAt = Date.now();
  const errors = [...health.values()].reduce((sum, h) => sum + h.errors24h, 0);
  const events = [...health.values()].reduce((sum, h) => sum + h.events24h, 0);

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          {projects.length === 0
            ? "You are not in any project yet."
            : `${plural(events, "event")} (${plural(errors, "error")}) in the last 24 hours across ${plural(projects.length, "project")}.`}
        </p>
      </div>

      {projects.length === 0 ? (
        <div className="rounded-xl border border-dashed border-zinc-300 p-6 text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
          <p>Create a project to start collecting events; the summary covers every project you are a member of.</p>
          <Link href="/projects" className={buttonClass("primary", "sm", "mt-3")}>
            Create a project
          </Link>
        </div>
      ) : (
        <>
          <section aria-labelledby="projects-heading" className="space-y-3">
            <h2 id="projects-heading" className="text-base font-semibold">
              Projects
            </h2>
            <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
              {projects.map((project) => (
                <li key={project.id}>
                  <Link
                    href={`/projects/${project.id}`}
                    className="flex h-full flex-col gap-2 rounded-xl border border-zinc-200 bg-white p-4 shadow-sm hover:border-indigo-300 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-indigo-700"
                  >
                    <span className="flex items-center justify-between gap-2">
                      <span className="truncate font-medium">{project.name}</span>
                      <RoleBadge role={project.role} />
                    </span>
                    <ProjectHealthLine health={health.get(project.id)} renderedAt={renderedAt} />
                  </Link>
                </li>
              ))}
            </ul>
          </section>
          <SummaryPanel />
        </>
      )}
    </div>
  );
}
