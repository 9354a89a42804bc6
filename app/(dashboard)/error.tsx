"use client";

import { Button } from "@/components/button";

/** An unexpected failure while rendering a dashboard page (the server log has the details). */
export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The page could not be loaded. If the database was briefly unreachable, trying again usually works.
      </p>
      {error.digest && <p className="mt-2 font-mono text-xs text-zinc-500">Reference: {error.digest}</p>}
      <Button variant="primary" className="mt-6" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
