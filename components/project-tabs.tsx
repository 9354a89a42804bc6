"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** Issues | Events | Team & settings, for one project. */
export function ProjectTabs({ projectId }: { projectId: string }) {
  const pathname = usePathname();
  const base = `/projects/${projectId}`;
  const under = (path: string) => pathname === path || pathname.startsWith(`${path}/`);
  const tabs = [
    // The project opens on its issues; an issue's page belongs to that tab too.
    { href: base, label: "Issues", active: pathname === base || under(`${base}/issues`) },
    { href: `${base}/events`, label: "Events", active: under(`${base}/events`) },
    { href: `${base}/settings`, label: "Team & settings", active: under(`${base}/settings`) },
  ];
  return (
    <nav aria-label="Project" className="-mb-px flex gap-4 overflow-x-auto border-b border-zinc-200 dark:border-zinc-800">
      {tabs.map((tab) => (
        <Link
          key={tab.href}
          href={tab.href}
          aria-current={tab.active ? "page" : undefined}
          className={`border-b-2 px-1 pb-2 text-sm font-medium whitespace-nowrap ${
            tab.active
              ? "border-indigo-600 text-zinc-900 dark:border-indigo-400 dark:text-zinc-100"
              : "border-transparent text-zinc-500 hover:border-zinc-300 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200"
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
