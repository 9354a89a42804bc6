import Link from "next/link";
import type { FormAction } from "@/components/action-state";
import { AlertDeliveryLog } from "@/components/alert-delivery-log";
import { AlertRuleForm, type AlertRuleFormState } from "@/components/alert-rule-form";
import { AlertRuleList } from "@/components/alert-rule-list";
import type { AlertDeliveryView } from "@/lib/alerts/deliveries";
import type { AlertRuleView } from "@/lib/alerts/rules";

type Member = { userId: string; email: string; name: string | null };

/** The settings page's alerts: rules (owners add, test and delete; members see them) and the delivery log. */
export function AlertSettings({
  projectId,
  isOwner,
  rules,
  deliveries,
  members,
  renderedAt,
  className,
  actions,
}: {
  projectId: string;
  isOwner: boolean;
  rules: AlertRuleView[];
  deliveries: AlertDeliveryView[];
  members: Member[];
  renderedAt: number;
  className: string;
  actions: {
    create: (previous: AlertRuleFormState, formData: FormData) => Promise<AlertRuleFormState>;
    sendTest: FormAction;
    remove: FormAction;
    resume: FormAction;
  };
}) {
  const people = new Map(members.map((m) => [m.userId, m.name ?? m.email]));
  return (
    <>
      <section aria-labelledby="alerts-heading" className={className}>
        <h2 id="alerts-heading" className="mb-1 text-base font-semibold">
          Alerts
        </h2>
        <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
          Who is told about new issues, regressions and spikes, by email or webhook.{" "}
          {isOwner ? "Webhooks are signed (X-Telltale-Signature)." : "Owners can change these rules."}
        </p>
        <AlertRuleList
          projectId={projectId}
          rules={rules}
          people={people}
          isOwner={isOwner}
          renderedAt={renderedAt}
          sendTestAction={actions.sendTest}
          deleteAction={actions.remove}
          resumeAction={actions.resume}
        />
        {isOwner && (
          <>
            <h3 className="mt-6 mb-2 text-sm font-semibold">Add a rule</h3>
            <AlertRuleForm projectId={projectId} members={members.map((m) => ({ userId: m.userId, label: m.name ? `${m.name} (${m.email})` : m.email }))} action={actions.create} />
          </>
        )}
      </section>
      <section aria-labelledby="deliveries-heading" className={className}>
        <div className="mb-3 flex items-center justify-between gap-3">
          <h2 id="deliveries-heading" className="text-base font-semibold">
            Alert deliveries
          </h2>
          <Link href={`/projects/${projectId}/settings`} className="text-sm text-indigo-600 hover:underline dark:text-indigo-400">
            Refresh
          </Link>
        </div>
        <AlertDeliveryLog projectId={projectId} deliveries={deliveries} renderedAt={renderedAt} />
      </section>
    </>
  );
}
