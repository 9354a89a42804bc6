import type { FormAction } from "@/components/action-state";
import { ActionButton } from "@/components/action-button";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { LocalTime } from "@/components/local-time";
import type { AlertRuleView } from "@/lib/alerts/rules";

const LEVEL_WORDS = { error: "errors", warn: "warnings and errors", info: "any level" } as const;

/** A rule in words: "New issues (errors)", "Spikes: 100 events in 5 min in one issue (any level)". */
export function describeAlertRule(rule: AlertRuleView): string {
  const level = LEVEL_WORDS[rule.minLevel];
  if (rule.trigger === "new_issue") return `New issues (${level})`;
  if (rule.trigger === "regression") return `Regressions (${level})`;
  const spike = rule.spike!;
  return `Spikes: ${spike.count.toLocaleString("en-US")} events in ${spike.minutes} min ${spike.scope === "issue" ? "in one issue" : "across the project"} (${level})`;
}

function describeChannel(rule: AlertRuleView, people: Map<string, string>): string {
  if (rule.channel.type === "email") {
    const names = rule.channel.userIds.map((id) => people.get(id) ?? "a former member");
    return `Email to ${names.join(", ")}`;
  }
  const format = { json: "JSON", slack: "Slack", discord: "Discord" }[rule.channel.format];
  return `${format} webhook: ${rule.channel.url}`;
}

/** The project's alert rules; owners get "Send test" and "Delete" on each, and "Resume" on a paused webhook. */
export function AlertRuleList({
  projectId,
  rules,
  people,
  isOwner,
  renderedAt,
  sendTestAction,
  deleteAction,
  resumeAction,
}: {
  projectId: string;
  rules: AlertRuleView[];
  /** userId -> what to call them (name or email). */
  people: Map<string, string>;
  isOwner: boolean;
  renderedAt: number;
  sendTestAction: FormAction;
  deleteAction: FormAction;
  resumeAction: FormAction;
}) {
  if (rules.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">No rules: nobody is told about new issues.</p>;
  return (
    <ul aria-label="Alert rules" className="divide-y divide-zinc-200 dark:divide-zinc-800">
      {rules.map((rule) => {
        const what = describeAlertRule(rule);
        return (
          <li key={rule.id} aria-label={what} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
            <div className="min-w-0 flex-1 basis-64">
              <p className="text-sm font-medium">{what}</p>
              <p className="truncate text-xs text-zinc-500 dark:text-zinc-400">{describeChannel(rule, people)}</p>
              {rule.paused && (
                <p role="status" className="mt-1 text-xs text-red-700 dark:text-red-400">
                  <span className="font-semibold">Paused</span> <LocalTime iso={rule.paused.at} format="relative" renderedAt={renderedAt} />: this webhook kept failing
                  {rule.paused.reason ? ` (${rule.paused.reason})` : ""}. Nothing is sent to it until an owner resumes it.
                </p>
              )}
            </div>
            {isOwner && (
              <div className="flex flex-wrap items-center gap-2">
                {rule.paused && <ActionButton action={resumeAction} fields={{ projectId, ruleId: rule.id }} label="Resume" ariaLabel={`Resume: ${what}`} />}
                <ActionButton action={sendTestAction} fields={{ projectId, ruleId: rule.id }} label="Send test" ariaLabel={`Send a test: ${what}`} variant="secondary" />
                <ConfirmDialog
                  triggerLabel="Delete"
                  triggerAriaLabel={`Delete rule: ${what}`}
                  title="Delete this alert rule?"
                  confirmLabel="Delete rule"
                  action={deleteAction}
                  fields={{ projectId, ruleId: rule.id }}
                >
                  <p>{what}</p>
                  <p>Notifications it has not sent yet are cancelled; the log keeps what it sent.</p>
                </ConfirmDialog>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}
