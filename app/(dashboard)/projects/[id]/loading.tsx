/** Shown while a project's events load (navigations, filter changes). */
export default function EventsLoading() {
  return (
    <div aria-busy="true" aria-label="Loading events" className="space-y-4">
      <div className="h-52 animate-pulse rounded-xl bg-zinc-200/70 motion-reduce:animate-none dark:bg-zinc-800/60" />
      <div className="h-10 animate-pulse rounded-md bg-zinc-200/70 motion-reduce:animate-none dark:bg-zinc-800/60" />
      <div className="h-72 animate-pulse rounded-xl bg-zinc-200/70 motion-reduce:animate-none dark:bg-zinc-800/60" />
    </div>
  );
}
