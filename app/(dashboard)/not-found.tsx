import Link from "next/link";
import { buttonClass } from "@/components/button";

/** A project that does not exist or that the caller is not a member of: the same answer for both. */
export default function DashboardNotFound() {
  return (
    <div className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        This project does not exist, or you are not a member of it. Ask one of its owners for an invitation.
      </p>
      <Link href="/projects" className={buttonClass("primary", "md", "mt-6")}>
        Back to your projects
      </Link>
    </div>
  );
}
