import Link from "next/link";

/** 1h · 24h · 7d · 30d as links (an issue's page): the current one marked. */
export function PeriodLinks({ options }: { options: { label: string; href: string; current: boolean }[] }) {
  return (
    <nav aria-label="Period" className="inline-flex rounded-lg border border-zinc-200 bg-white p-0.5 text-xs shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
      {options.map((option) => (
        <Link
          key={option.label}
          href={option.href}
          aria-current={option.current ? "page" : undefined}
          className={`rounded-md px-2.5 py-1 font-medium ${
            option.current
              ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
              : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-400 dark:hover:bg-zinc-800"
          }`}
        >
          {option.label}
        </Link>
      ))}
    </nav>
  );
}
