import Link from "next/link";
import { ProjectTabs } from "@/components/project-tabs";
import { RoleBadge } from "@/components/role-badge";
import { TimeZoneToggle } from "@/components/time-zone-toggle";
import { projectAccess } from "@/app/(dashboard)/session";

export default async function ProjectLayout({ children, params }: { children: React.ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const access = await projectAccess(id);

  return (
    <div className="space-y-4 sm:space-y-6">
      <div className="space-y-2 sm:space-y-3">
        <div className="flex items-center justify-between gap-3">
          <p className="text-sm text-zinc-500 dark:text-zinc-400">
            <Link href="/projects" className="hover:underline">
              ← All projects
            </Link>
          </p>
          <TimeZoneToggle />
        </div>
        <h1 className="flex flex-wrap items-center gap-2 text-xl font-semibold tracking-tight sm:text-2xl">
          <span className="min-w-0 break-words">{access.projectName}</span>
          <RoleBadge role={access.role} />
        </h1>
        <ProjectTabs projectId={access.projectId} />
      </div>
      {children}
    </div>
  );
}
