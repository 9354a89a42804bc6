import type { PersonView } from "@/lib/auth/users";

/** How the workflow names a person: their name, else their address. */
export const personName = (p: PersonView) => p.name || p.email;
