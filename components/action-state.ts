/** What a dashboard server action answers to the form that called it. */
export type ActionState = { ok: true; message?: string } | { ok: false; error: string } | null;

/** A form action in the shape `useActionState` expects. */
export type FormAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;
