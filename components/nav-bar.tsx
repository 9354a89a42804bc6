import Link from "next/link";
import { SubmitButton } from "@/components/submit-button";

/** The top bar of every dashboard page: where you are, who you are, the way out. */
export function NavBar({ email, signOut }: { email: string; signOut: () => Promise<void> }) {
  return (
    <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950">
      <nav aria-label="Main" className="mx-auto flex h-14 max-w-6xl items-center gap-1 px-3 sm:gap-4 sm:px-4">
        <Link href="/projects" className="mr-2 flex items-center gap-2 font-semibold tracking-tight">
          <span aria-hidden="true" className="grid size-6 place-items-center rounded-md bg-indigo-600 text-xs font-bold text-white">
            T
          </span>
          <span className="hidden sm:inline">Telltale</span>
        </Link>
        <Link href="/projects" className="rounded-md px-2 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
          Projects
        </Link>
        <Link href="/overview" className="rounded-md px-2 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800">
          Overview
        </Link>
        <div className="ml-auto flex min-w-0 items-center gap-2">
          <span className="max-w-[6.5rem] truncate text-xs text-zinc-500 sm:max-w-xs sm:text-sm dark:text-zinc-400" title={email}>
            {email}
          </span>
          <form action={signOut}>
            <SubmitButton variant="ghost" size="sm" pendingLabel="Signing out…">
              Sign out
            </SubmitButton>
          </form>
        </div>
      </nav>
    </header>
  );
}
