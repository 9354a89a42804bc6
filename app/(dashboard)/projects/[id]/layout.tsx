import Link from "next/link";
import { ProjectTabs } from "@/components/project-tabs";
import { RoleBadge } from "@/components/role-badge";
import { projectForMember, requireUser } from "../../session";

export default async function ProjectLayout({ children, params }: { children: React.ReactNode; params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/projects/${id}`);
  const project = await projectForMember(user.id, id);

  return (
    <div className="space-y-6">
      <div className="space-y-3">
        <p className="text-sm text-zinc-500 dark:text-zinc-400">
          <Link href="/projects" className="hover:underline">
            ← All projects
          </Link>
        </p>
        <h1 className="flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
          <span className="min-w-0 break-words">{project.name}</span>
          <RoleBadge role={project.role} />
        </h1>
        <ProjectTabs projectId={project.id} />
      </div>
      {children}
    </div>
  );
}
