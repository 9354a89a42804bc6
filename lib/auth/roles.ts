/** A member's role in a project: owners do everything, members read and summarize. */
export const ROLES = ["owner", "member"] as const;
export type ProjectRole = (typeof ROLES)[number];
