"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import type { ActionState } from "@/components/action-state";
import { CopyButton } from "@/components/copy-button";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";
import { inputClass } from "@/components/text-field";

type Created = { ok: true; ruleId: string; signingSecret: string | null };
export type AlertRuleFormState = ActionState | Created;

export type AlertRecipient = { userId: string; label: string };

const labelClass = "text-sm font-medium text-zinc-700 dark:text-zinc-300";

/**
 * A new alert rule: what notifies (trigger, level, a spike's threshold) and
 * where (members by email, or a webhook). A webhook's signing secret is shown
 * once, after creation, to copy into the receiver.
 */
export function AlertRuleForm({
  projectId,
  members,
  action,
}: {
  projectId: string;
  members: AlertRecipient[];
  action: (previous: AlertRuleFormState, formData: FormData) => Promise<AlertRuleFormState>;
}) {
  const [state, formAction] = useActionState(action, null);
  const form = useRef<HTMLFormElement>(null);
  const [trigger, setTrigger] = useState("new_issue");
  const [channel, setChannel] = useState("email");
  const [recipients, setRecipients] = useState<string[]>(members.slice(0, 1).map((m) => m.userId));
  const created = state && "ruleId" in state ? state : null;

  useEffect(() => {
    if (!created) return;
    form.current?.reset();
    setTrigger("new_issue");
    setChannel("email");
  }, [created]);

  const toggle = (userId: string, on: boolean) => setRecipients((ids) => (on ? [...ids, userId] : ids.filter((id) => id !== userId)));

  return (
    <div className="space-y-3">
      <form ref={form} action={formAction} aria-label="New alert rule" className="space-y-3">
        <input type="hidden" name="projectId" value={projectId} />
        <div className="grid gap-3 sm:grid-cols-3">
          <div className="flex flex-col gap-1.5">
            <label htmlFor="alert-trigger" className={labelClass}>
              Notify on
            </label>
            <select id="alert-trigger" name="trigger" value={trigger} onChange={(e) => setTrigger(e.target.value)} className={inputClass}>
              <option value="new_issue">A new issue</option>
              <option value="regression">A regression (a resolved issue is back)</option>
              <option value="spike">A spike of events</option>
            </select>
          </div>
          <div className="flex flex-col gap-1.5">
            <label htmlFor="alert-level" className={labelClass}>
              Level
            </label>
            <select id="alert-level" name="minLevel" defaultValue="error" className={inputClass}>
              <option value="error">Errors</option>
              <option value="warn">Warnings and errors</option>
              <option value="info">Any level</option>
            </select>
          </div>
          <div className="flex flex-col gap-1.5">
            <label htmlFor="alert-channel" className={labelClass}>
              Send to
            </label>
            <select id="alert-channel" name="channelType" value={channel} onChange={(e) => setChannel(e.target.value)} className={inputClass}>
              <option value="email">Email</option>
              <option value="webhook">Webhook</option>
            </select>
          </div>
        </div>

        {trigger === "spike" && (
          <fieldset className="grid gap-3 sm:grid-cols-3">
            <legend className="sr-only">Spike threshold</legend>
            <div className="flex flex-col gap-1.5">
              <label htmlFor="alert-spike-count" className={labelClass}>
                Events
              </label>
              <input id="alert-spike-count" name="spikeCount" type="number" min={1} required defaultValue={100} className={inputClass} />
            </div>
            <div className="flex flex-col gap-1.5">
              <label htmlFor="alert-spike-minutes" className={labelClass}>
                Within (minutes)
              </label>
              <input id="alert-spike-minutes" name="spikeMinutes" type="number" min={1} max={1440} required defaultValue={5} className={inputClass} />
            </div>
            <div className="flex flex-col gap-1.5">
              <label htmlFor="alert-spike-scope" className={labelClass}>
                Counted over
              </label>
              <select id="alert-spike-scope" name="spikeScope" defaultValue="issue" className={inputClass}>
                <option value="issue">Each issue</option>
                <option value="project">The whole project</option>
              </select>
            </div>
          </fieldset>
        )}

        {channel === "email" ? (
          <fieldset>
            <legend className={`${labelClass} mb-1.5`}>Recipients</legend>
            <input type="hidden" name="userIds" value={recipients.join(",")} />
            <ul className="flex flex-wrap gap-x-4 gap-y-1.5">
              {members.map((m) => (
                <li key={m.userId}>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" checked={recipients.includes(m.userId)} onChange={(e) => toggle(m.userId, e.target.checked)} />
                    {m.label}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        ) : (
          <div className="grid gap-3 sm:grid-cols-3">
            <div className="flex flex-col gap-1.5 sm:col-span-2">
              <label htmlFor="alert-webhook-url" className={labelClass}>
                Webhook URL
              </label>
              <input id="alert-webhook-url" name="webhookUrl" type="url" required autoComplete="off" placeholder="https://hooks.slack.com/services/…" className={inputClass} />
            </div>
            <div className="flex flex-col gap-1.5">
              <label htmlFor="alert-webhook-format" className={labelClass}>
                Format
              </label>
              <select id="alert-webhook-format" name="webhookFormat" defaultValue="json" className={inputClass}>
                <option value="json">Generic JSON</option>
                <option value="slack">Slack</option>
                <option value="discord">Discord</option>
              </select>
            </div>
          </div>
        )}
        <SubmitButton pendingLabel="Adding…">Add rule</SubmitButton>
      </form>
      {state && !created && <FormMessage state={state} />}
      {created && (
        <div role="status" className="space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950/40">
          <p className="text-emerald-900 dark:text-emerald-200">
            {created.signingSecret
              ? "Rule added. Its signing secret is shown this once: copy it into the receiver to verify X-Telltale-Signature."
              : "Rule added."}
          </p>
          {created.signingSecret && (
            <div className="flex flex-wrap items-center gap-2">
              <code
                aria-label="Signing secret"
                className="min-w-0 flex-1 basis-64 overflow-x-auto rounded border border-emerald-200 bg-white px-2 py-1 font-mono text-xs whitespace-nowrap dark:border-emerald-900 dark:bg-zinc-950"
              >
                {created.signingSecret}
              </code>
              <CopyButton text={created.signingSecret} ariaLabel="Copy signing secret" />
            </div>
          )}
        </div>
      )}
    </div>
  );
}
