import type { Metadata } from "next";
import { AlertSettings } from "@/components/alert-settings";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { InviteForm } from "@/components/invite-form";
import { LocalTime } from "@/components/local-time";
import { RoleBadge } from "@/components/role-badge";
import { listAlertDeliveries } from "@/lib/alerts/deliveries";
import { listAlertRules } from "@/lib/alerts/rules";
import { listProjectInvitations, type ProjectInvitation } from "@/lib/invitations/service";
import { listMembers } from "@/lib/projects/members";
import { projectAccess } from "@/app/(dashboard)/session";
import { createAlertRuleAction, deleteAlertRuleAction, resumeAlertRuleAction, sendTestAlertAction } from "./alert-actions";
import { deleteProjectAction, inviteAction, removeMemberAction, revokeInvitationAction } from "./actions";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const access = await projectAccess(id);
  return { title: `${access.projectName} · Team & settings` };
}

const card = "rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900";

export default async function ProjectSettingsPage({ params }: Props) {
  const { id } = await params;
  const access = await projectAccess(id);
  const isOwner = access.role === "owner";
  const [members, invitations, alertRules, alertLog] = await Promise.all([
    listMembers(access),
    isOwner ? listProjectInvitations(access) : Promise.resolve([] as ProjectInvitation[]),
    listAlertRules(access),
    listAlertDeliveries(access, { limit: 20 }),
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
                        You are the only owner: make someone else an owner first (invite them as owner), or delete the project.
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
            Members read events, see the API key and use the summary. Owners can also invite, remove, rotate the key and delete the project.
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
