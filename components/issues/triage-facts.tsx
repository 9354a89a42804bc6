import { formatCount } from "@/components/number-format";
import { Stat } from "@/components/stat";
import type { IssueDetails } from "@/lib/issues/issue-details";

/** What triage asks first, under the issue's totals: its first and last release (ever), environments and users affected (in the period). */
export function TriageFacts({ issue }: { issue: IssueDetails }) {
  return (
    <dl aria-label="Releases, environments and users" className="grid grid-cols-2 gap-x-4 gap-y-3 border-t border-zinc-100 pt-3 sm:grid-cols-4 dark:border-zinc-800">
      <Stat label="First release">
        <span className="font-mono" title={issue.firstRelease ?? undefined}>
          {issue.firstRelease ?? "none"}
        </span>
      </Stat>
      <Stat label="Last release">
        <span className="font-mono" title={issue.lastRelease ?? undefined}>
          {issue.lastRelease ?? "none"}
        </span>
      </Stat>
      <Stat label="Environments">
        <span title={issue.environments.join(", ") || undefined}>{issue.environments.length > 0 ? issue.environments.join(", ") : "none"}</span>
      </Stat>
      <Stat label="Users affected">
        <span title={issue.usersAffectedEstimate ? "More users than are kept per hour: at least this many." : undefined}>
          {formatCount(issue.usersAffected)}
          {issue.usersAffectedEstimate ? "+" : ""}
        </span>
      </Stat>
    </dl>
  );
}
