import { NotFoundMessage } from "@/components/not-found-message";

/** A project that does not exist or that the caller is not a member of: the same answer for both. */
export default function DashboardNotFound() {
  return (
    <NotFoundMessage title="Not found" links={[{ href: "/projects", label: "Back to your projects" }]}>
      This project does not exist, or you are not a member of it. Ask one of its owners for an invitation.
    </NotFoundMessage>
  );
}
