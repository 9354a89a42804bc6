import { Role } from "@/lib/db/generated/enums";

/** A member's role in a project: owners do everything, members read and summarize. The schema's `Role` enum. */
export type ProjectRole = Role;
export const ROLES = Object.values(Role) as [ProjectRole, ...ProjectRole[]];
