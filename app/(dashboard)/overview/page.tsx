import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/button";
import { RoleBadge } from "@/components/role-badge";
import { SummaryPanel } from "@/components/summary-panel";
import { listProjectsForUser } from "@/lib/projects/service";
import { requireUser } from "../session";

export const metadata: Metadata = { title: "Overview" };

const numberFormat = new Intl.NumberFormat("en-US");

/** Everything the user can see at once: an AI summary across projects and where the events are. */
export default async function OverviewPage() {
  const user = await requireUser("/overview");
  const projects = await listProjectsForUser(user.id);
  const total = projects.reduce((sum, p) => sum + p.eventCount, 0);

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Overview</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          {projects.length === 0
            ? "You are not in any project yet."
            : `${numberFormat.format(total)} events across ${projects.length} project${projects.length === 1 ? "" : "s"}.`}
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
          <SummaryPanel />
          <section aria-labelledby="projects-heading" className="space-y-3">
            <h2 id="projects-heading" className="text-base font-semibold">
              Projects
            </h2>
            <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
              {projects.map((project) => (
                <li key={project.id}>
                  <Link
                    href={`/projects/${project.id}`}
                    className="flex h-full flex-col gap-1 rounded-xl border border-zinc-200 bg-white p-4 shadow-sm hover:border-indigo-300 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-indigo-700"
                  >
                    <span className="flex items-center justify-between gap-2">
                      <span className="truncate font-medium">{project.name}</span>
                      <RoleBadge role={project.role} />
                    </span>
                    <span className="text-sm text-zinc-500 tabular-nums dark:text-zinc-400">
                      {numberFormat.format(project.eventCount)} {project.eventCount === 1 ? "event" : "events"}
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          </section>
        </>
      )}
    </div>
  );
}
