import { NotFoundMessage } from "@/components/not-found-message";

/** An issue or event that is not in this project (a mistyped link, or removed by retention); the project's tabs stay above. */
export default function ProjectItemNotFound() {
  return (
    <NotFoundMessage title="Not found" links={[{ href: "/projects", label: "Back to your projects", primary: false }]}>
      This issue or event is not in this project. Its link may be mistyped, or the events it pointed to were removed by the retention policy.
    </NotFoundMessage>
  );
}
