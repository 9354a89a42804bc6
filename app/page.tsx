import { redirect } from "next/navigation";
import { currentUser } from "@/lib/edge/caller";

/** The front door: the dashboard when signed in, the sign-in page otherwise. */
export default async function HomePage() {
  redirect((await currentUser()) ? "/projects" : "/signin");
}
