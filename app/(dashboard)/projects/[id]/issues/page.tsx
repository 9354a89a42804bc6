import { redirect } from "next/navigation";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The issues list lives at the project's own address; `/issues` (a guessed or API-shaped URL) leads there. */
export default async function IssuesRedirect({ params, searchParams }: Props) {
  const { id } = await params;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(await searchParams)) if (typeof value === "string") query.set(name, value);
  const text = query.toString();
  redirect(`/projects/${encodeURIComponent(id)}${text ? `?${text}` : ""}`);
}
