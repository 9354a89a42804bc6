import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClass } from "@/components/button";

/** The 404 answer of every page, in the dashboard's look: what happened and where to go instead. */
export function NotFoundMessage({
  title,
  children,
  links,
}: {
  title: string;
  children: ReactNode;
  links: { href: string; label: string; primary?: boolean }[];
}) {
  return (
    <div className="mx-auto max-w-md py-12 text-center sm:py-16">
      <p aria-hidden="true" className="font-mono text-5xl font-bold tracking-tight text-indigo-600/25 dark:text-indigo-400/25">
        404
      </p>
      <h1 className="mt-3 text-xl font-semibold">{title}</h1>
      <div className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{children}</div>
      <div className="mt-6 flex flex-wrap justify-center gap-2">
        {links.map((link) => (
          <Link key={link.href} href={link.href} className={buttonClass(link.primary === false ? "secondary" : "primary", "md")}>
            {link.label}
          </Link>
        ))}
      </div>
    </div>
  );
}
