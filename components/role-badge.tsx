import type { ProjectRole } from "@/lib/auth/roles";

export function RoleBadge({ role }: { role: ProjectRole }) {
  const style =
    role === "owner"
      ? "bg-indigo-100 text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-300"
      : "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300";
  return <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${style}`}>{role}</span>;
}
