import Link from "next/link";

/** Open / Resolved / Ignored as links (each a shareable URL), the current one marked. */
export function StatusTabs({ tabs }: { tabs: { label: string; href: string; current: boolean }[] }) {
  return (
    <nav aria-label="Issue status" className="inline-flex rounded-lg border border-zinc-200 bg-white p-0.5 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
      {tabs.map((tab) => (
        <Link
          key={tab.label}
          href={tab.href}
          aria-current={tab.current ? "page" : undefined}
          className={`rounded-md px-3 py-1.5 text-sm font-medium ${
            tab.current
              ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
              : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800"
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
