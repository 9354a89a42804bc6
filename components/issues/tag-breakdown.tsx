import Link from "next/link";
import { formatCount } from "@/components/number-format";
import type { TagBreakdown } from "@/lib/issues/tag-breakdown";

const percent = (share: number) => `${share >= 0.1 ? Math.round(share * 100) : Math.round(share * 1000) / 10}%`;

/** One value's row: its bar (the share of the key's events), name, count and share; a link that filters the events. */
function ValueRow({ tagKey, value, count, share, href, current }: { tagKey: string; value: string; count: number; share: number; href?: string; current?: boolean }) {
  const content = (
    <>
      <span aria-hidden="true" className="absolute inset-y-0 left-0 rounded bg-indigo-100 dark:bg-indigo-900/50" style={{ width: `${Math.max(share * 100, 1)}%` }} />
      <span className="relative min-w-0 flex-1 truncate">{value}</span>
      <span className="relative shrink-0 text-zinc-500 tabular-nums dark:text-zinc-400">
        {formatCount(count)} · {percent(share)}
      </span>
    </>
  );
  const className = "relative flex items-center gap-2 overflow-hidden rounded px-1.5 py-0.5 text-xs";
  return (
    <li>
      {href ? (
        <Link
          href={href}
          aria-current={current ? "true" : undefined}
          aria-label={`${tagKey}: ${value}, ${formatCount(count)} events (${percent(share)}), show these events`}
          className={`${className} hover:ring-1 hover:ring-indigo-400 ${current ? "ring-2 ring-indigo-500" : ""}`}
        >
          {content}
        </Link>
      ) : (
        <span className={`${className} text-zinc-500`}>{content}</span>
      )}
    </li>
  );
}

/**
 * The tags in the period: per key its most frequent values as bars
 * with their share of the key's events; a value links to the issue's
 * events with that tag. "Other" holds the rest, named or not.
 */
export function TagBreakdownList({ tags, hrefFor, isCurrent }: { tags: TagBreakdown[]; hrefFor: (key: string, value: string) => string; isCurrent: (key: string, value: string) => boolean }) {
  return (
    <div className="grid gap-x-6 gap-y-4 sm:grid-cols-2 lg:grid-cols-3">
      {tags.map((tag) => (
        <section key={tag.key} aria-label={`Tag ${tag.key}`} className="min-w-0 space-y-1">
          <h4 className="flex items-baseline justify-between gap-2 text-xs">
            <span className="truncate font-semibold">{tag.key}</span>
            <span className="shrink-0 text-zinc-500 dark:text-zinc-400" title={tag.distinctCountEstimate ? "More values than are kept per hour: at least this many." : undefined}>
              {formatCount(tag.distinctCount)}
              {tag.distinctCountEstimate ? "+" : ""} value{tag.distinctCount === 1 && !tag.distinctCountEstimate ? "" : "s"}
            </span>
          </h4>
          <ul className="space-y-0.5">
            {tag.values.map((v) => (
              <ValueRow key={v.value} tagKey={tag.key} value={v.value} count={v.count} share={v.share} href={hrefFor(tag.key, v.value)} current={isCurrent(tag.key, v.value)} />
            ))}
            {tag.otherCount > 0 && <ValueRow tagKey={tag.key} value="Other" count={tag.otherCount} share={tag.total > 0 ? tag.otherCount / tag.total : 0} />}
          </ul>
        </section>
      ))}
    </div>
  );
}
