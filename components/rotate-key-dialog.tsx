import type { FormAction } from "@/components/action-state";
import { ConfirmDialog } from "@/components/confirm-dialog";

/**
 * Owner: rotates the project's API key (`secret`) or its DSN's public key
 * (`public`), each on its own; the answer shows the new one.
 */
export function RotateKeyDialog({ projectId, projectName, kind, action }: { projectId: string; projectName: string; kind: "secret" | "public"; action: FormAction }) {
  const what = kind === "secret" ? "API key" : "DSN key";
  return (
    <ConfirmDialog
      triggerLabel="Rotate"
      triggerAriaLabel={`Rotate ${what} for ${projectName}`}
      triggerVariant="ghost"
      title={`Rotate the ${what} of “${projectName}”?`}
      confirmLabel={`Rotate ${what}`}
      action={action}
      fields={{ projectId, kind }}
    >
      {kind === "secret" ? (
        <p>
          A new key is created and <strong className="text-zinc-900 dark:text-zinc-100">the old key stops working immediately</strong>: every application still sending
          with it will get 401 errors until you update it. The DSN is not affected.
        </p>
      ) : (
        <p>
          The DSN gets a new public key and <strong className="text-zinc-900 dark:text-zinc-100">the old DSN stops working immediately</strong>: every Sentry SDK still
          sending with it gets 401 errors until you update it. The API key is not affected.
        </p>
      )}
    </ConfirmDialog>
  );
}
