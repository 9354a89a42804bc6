/** The centred card of the sign-in, confirmation and invitation pages. */
export function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center px-4 py-12">
      <div className="mb-6 flex items-center gap-2 text-lg font-semibold tracking-tight">
        <span aria-hidden="true" className="grid size-7 place-items-center rounded-md bg-indigo-600 text-sm font-bold text-white">
          T
        </span>
        Telltale
      </div>
      <div className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <h1 className="mb-4 text-xl font-semibold tracking-tight">{title}</h1>
        {children}
      </div>
    </main>
  );
}
