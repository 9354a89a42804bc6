/**
 * Shown while the issues or events list loads (tab and page links). Only the
 * lists have it: a loading boundary sends the page's first bytes (status 200)
 * before the page runs, so an issue's or an event's page, which can be a 404,
 * stays outside this group to answer with a real 404 status.
 */
export default function ProjectListLoading() {
  return (
    <div aria-busy="true" aria-label="Loading" className="space-y-4">
      <div className="h-10 animate-pulse rounded-md bg-zinc-200/70 motion-reduce:animate-none dark:bg-zinc-800/60" />
      <div className="h-72 animate-pulse rounded-xl bg-zinc-200/70 motion-reduce:animate-none dark:bg-zinc-800/60" />
    </div>
  );
}
