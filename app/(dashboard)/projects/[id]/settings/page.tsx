import type { Metadata } from "next";
import { ActionButton } from "@/components/action-button";
import { AlertSettings } from "@/components/alert-settings";
import { AllowedOriginsForm } from "@/components/allowed-origins-form";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { DsnPanel } from "@/components/dsn-panel";
import { RotateKeyDialog } from "@/components/rotate-key-dialog";
import { InviteForm } from "@/components/invite-form";
import { LocalTime } from "@/components/local-time";
import { RoleBadge } from "@/components/role-badge";
import { listAlertDeliveries } from "@/lib/alerts/deliveries";
import { listAlertRules } from "@/lib/alerts/rules";
import { listProjectInvitations, type ProjectInvitation } from "@/lib/invitations/service";
import { listMembers } from "@/lib/projects/members";
import { getProjectDetails } from "@/lib/projects/service";
import { droppedItemTotals } from "@/lib/sentry/dropped-items";
import { projectAccess, siteOrigin } from "@/app/(dashboard)/session";
import { rotateKeyAction } from "@/app/(dashboard)/projects/actions";
import { createAlertRuleAction, deleteAlertRuleAction, resumeAlertRuleAction, sendTestAlertAction } from "./alert-actions";
import { changeRoleAction, deleteProjectAction, inviteAction, removeMemberAction, revokeInvitationAction, updateAllowedOriginsAction } from "./actions";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const access = await projectAccess(id);
  return { title: `${access.projectName} · Team & settings` };
}

const DROPPED_DAYS = 30;
const numberFormat = new Intl.NumberFormat("en-US");

const card = "rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900";

export default async function ProjectSettingsPage({ params }: Props) {
  const { id } = await params;
  const access = await projectAccess(id);
  const isOwner = access.role === "owner";
  const [members, invitations, alertRules, alertLog, details, dropped] = await Promise.all([
    listMembers(access),
    isOwner ? listProjectInvitations(access) : Promise.resolve([] as ProjectInvitation[]),
    listAlertRules(access),
    listAlertDeliveries(access, { limit: 20 }),
    siteOrigin().then((origin) => getProjectDetails(access, origin)),
    droppedItemTotals(access.projectId, DROPPED_DAYS),
  ]);
  const renderedAt = Date.now();
  const ownerCount = members.filter((m) => m.role === "owner").length;
  const soleOwner = isOwner && ownerCount === 1;

  return (
    <div className="space-y-6">
      <section aria-labelledby="members-heading" className={card}>
        <h2 id="members-heading" className="mb-3 text-base font-semibold">
          Members <span className="font-normal text-zinc-500">({members.length})</span>
        </h2>
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {members.map((member) => {
            const self = member.userId === access.userId;
            return (
              <li key={member.userId} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
                <div className="min-w-0 flex-1">
                  <p className="truncate text-sm font-medium">
                    {member.name ?? member.email}
                    {self && <span className="font-normal text-zinc-500"> (you)</span>}
                  </p>
                  <p className="truncate text-xs text-zinc-500 dark:text-zinc-400">
                    {member.name ? `${member.email} · ` : ""}joined <LocalTime iso={member.joinedAt} format="date" />
                  </p>
                </div>
                <RoleBadge role={member.role} />
                {isOwner && (!self || ownerCount > 1) && (
                  <ActionButton
                    action={changeRoleAction}
                    fields={{ projectId: id, userId: member.userId, role: member.role === "owner" ? "member" : "owner" }}
                    label={member.role === "owner" ? "Make member" : "Make owner"}
                    ariaLabel={`${member.role === "owner" ? "Make member" : "Make owner"}: ${member.email}`}
                    variant="secondary"
                  />
                )}
                {self ? (
                  <ConfirmDialog
                    triggerLabel="Leave"
                    triggerAriaLabel="Leave project"
                    title={`Leave “${access.projectName}”?`}
                    confirmLabel="Leave project"
                    action={removeMemberAction}
                    fields={{ projectId: id, userId: member.userId }}
                  >
                    <p>You will lose access to its events and key. An owner can invite you again.</p>
                    {soleOwner && member.role === "owner" && (
                      <p className="text-amber-700 dark:text-amber-400">
                        You are the only owner: make another member an owner first (Make owner, beside them in this list), or delete the project.
                      </p>
                    )}
                  </ConfirmDialog>
                ) : (
                  isOwner && (
                    <ConfirmDialog
                      triggerLabel="Remove"
                      triggerAriaLabel={`Remove ${member.email}`}
                      title={`Remove ${member.email}?`}
                      confirmLabel="Remove member"
                      action={removeMemberAction}
                      fields={{ projectId: id, userId: member.userId }}
                    >
                      <p>They lose access to this project at once. The project’s API key stays the same: rotate it if they should not keep using it.</p>
                    </ConfirmDialog>
                  )
                )}
              </li>
            );
          })}
        </ul>
      </section>

      {isOwner && (
        <section aria-labelledby="invite-heading" className={card}>
          <h2 id="invite-heading" className="mb-1 text-base font-semibold">
            Invite a teammate
          </h2>
          <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
            Members read events, see the API key and use the summary. Owners can also invite and remove members, change roles, rotate the keys and delete the project.
          </p>
          <InviteForm projectId={id} action={inviteAction} />
          <h3 className="mt-6 mb-2 text-sm font-semibold">Pending invitations</h3>
          {invitations.length === 0 ? (
            <p className="text-sm text-zinc-500 dark:text-zinc-400">None.</p>
          ) : (
            <ul aria-label="Pending invitations" className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {invitations.map((invitation) => (
                <li key={invitation.id} className="flex flex-wrap items-center gap-x-3 gap-y-2 py-3">
                  <div className="min-w-0 flex-1">
                    <p className="truncate text-sm font-medium">{invitation.email}</p>
                    <p className="text-xs text-zinc-500 dark:text-zinc-400">
                      invited by {invitation.invitedBy.name ?? invitation.invitedBy.email} · expires <LocalTime iso={invitation.expiresAt} format="relative" renderedAt={renderedAt} />
                    </p>
                  </div>
                  <RoleBadge role={invitation.role} />
                  <ConfirmDialog
                    triggerLabel="Revoke"
                    triggerAriaLabel={`Revoke invitation for ${invitation.email}`}
                    title={`Revoke the invitation for ${invitation.email}?`}
                    confirmLabel="Revoke invitation"
                    action={revokeInvitationAction}
                    fields={{ projectId: id, invitationId: invitation.id }}
                  >
                    <p>The emailed link stops working. You can invite them again later.</p>
                  </ConfirmDialog>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}

      <section aria-labelledby="sentry-heading" className={`${card} space-y-4`}>
        <div>
          <h2 id="sentry-heading" className="text-base font-semibold">
            Sentry SDKs
          </h2>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">Any Sentry SDK reports to this project with its DSN. The DSN’s key only sends events.</p>
        </div>
        <DsnPanel
          projectName={access.projectName}
          dsn={details.dsn}
          rotate={isOwner && <RotateKeyDialog projectId={id} projectName={access.projectName} kind="public" action={rotateKeyAction} />}
        />
        <AllowedOriginsForm projectId={id} origins={details.allowedOrigins} editable={isOwner} action={updateAllowedOriginsAction} />
        <div>
          <h3 className="mb-1 text-sm font-semibold">Dropped items (last {DROPPED_DAYS} days)</h3>
          <p className="mb-2 text-xs text-zinc-500 dark:text-zinc-400">
            Accepted from the SDKs but not stored: performance data, sessions, replays, check-ins and the like. Turn them off in the SDK to save bandwidth.
          </p>
          {dropped.length === 0 ? (
            <p className="text-sm text-zinc-500 dark:text-zinc-400">None.</p>
          ) : (
            <table aria-label="Dropped items" className="text-sm">
              <tbody>
                {dropped.map((d) => (
                  <tr key={d.itemType}>
                    <td className="py-0.5 pr-6 font-mono text-xs">{d.itemType}</td>
                    <td className="py-0.5 text-right tabular-nums">{numberFormat.format(d.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      </section>

      <AlertSettings
        projectId={id}
        isOwner={isOwner}
        rules={alertRules}
        deliveries={alertLog.deliveries}
        members={members}
        renderedAt={renderedAt}
        className={card}
        actions={{ create: createAlertRuleAction, sendTest: sendTestAlertAction, remove: deleteAlertRuleAction, resume: resumeAlertRuleAction }}
      />

      {isOwner && (
        <section aria-labelledby="danger-heading" className="rounded-xl border border-red-300 bg-white p-4 shadow-sm sm:p-5 dark:border-red-900 dark:bg-zinc-900">
          <h2 id="danger-heading" className="mb-1 text-base font-semibold text-red-700 dark:text-red-400">
            Delete project
          </h2>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-sm text-zinc-600 dark:text-zinc-400">Deletes the project, all its events, its key and its invitations. This cannot be undone.</p>
            <ConfirmDialog
              triggerLabel="Delete project"
              triggerVariant="danger"
              title={`Delete “${access.projectName}”?`}
              confirmLabel="Delete project"
              action={deleteProjectAction}
              fields={{ projectId: id }}
              confirmText={access.projectName}
            >
              <p>
                All of its events are deleted, its API key stops working and every member loses access. <strong>This cannot be undone.</strong>
              </p>
            </ConfirmDialog>
          </div>
        </section>
      )}
    </div>
  );
}
