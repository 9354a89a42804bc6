import type { Metadata } from "next";
import Link from "next/link";
import { NotFoundMessage } from "@/components/not-found-message";

export const metadata: Metadata = { title: "Page not found" };

/** Any other unknown address: the brand and a way back, outside the dashboard's frame. */
export default function NotFound() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center px-4 py-12">
      <Link href="/" className="flex items-center gap-2 text-lg font-semibold tracking-tight">
        <span aria-hidden="true" className="grid size-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
          T
        </span>
        Telltale
      </Link>
      <div className="mt-6 w-full max-w-md rounded-xl border border-zinc-200 bg-white px-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <NotFoundMessage title="Page not found" links={[{ href: "/projects", label: "Go to your projects" }]}>
          There is nothing at this address. Check the link, or start again from your projects.
        </NotFoundMessage>
      </div>
    </main>
  );
}
