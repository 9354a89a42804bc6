import { LocalTime } from "@/components/local-time";
import { formatCount } from "@/components/number-format";
import type { ProjectHealth } from "@/lib/projects/health";

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** A project's last 24 hours in one line: errors (red when there are any), events, new issues, the latest event. */
export function ProjectHealthLine({ health, renderedAt }: { health: ProjectHealth | undefined; renderedAt: number }) {
  if (!health?.lastEventAt) {
    return <p className="text-sm text-zinc-500 dark:text-zinc-400">No events yet.</p>;
  }
  return (
    <div className="space-y-1 text-sm">
      <p className="flex flex-wrap items-baseline gap-x-3 gap-y-1 tabular-nums">
        <span className={health.errors24h > 0 ? "font-semibold text-red-700 dark:text-red-400" : "text-zinc-500 dark:text-zinc-400"}>
          {plural(health.errors24h, "error", "errors")}
        </span>
        <span className="text-zinc-700 dark:text-zinc-300">{plural(health.events24h, "event", "events")}</span>
        <span className={health.newIssues24h > 0 ? "font-medium text-emerald-700 dark:text-emerald-400" : "text-zinc-500 dark:text-zinc-400"}>
          {plural(health.newIssues24h, "new issue", "new issues")}
        </span>
      </p>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        in the last 24 hours · last event <LocalTime iso={health.lastEventAt} format="relative" renderedAt={renderedAt} />
      </p>
    </div>
  );
}
