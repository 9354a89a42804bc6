export type { ActionState } from "@/lib/edge/action";
import type { ActionState } from "@/lib/edge/action";

/** A form action in the shape `useActionState` expects. */
export type FormAction = (previous: ActionState, formData: FormData) => Promise<ActionState>;
