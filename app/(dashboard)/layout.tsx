import { NavBar } from "@/components/nav-bar";
import { signOut } from "@/lib/auth/config";
import { requireUser } from "./session";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();

  async function signOutAction() {
    "use server";
    await signOut({ redirectTo: "/signin" });
  }

  return (
    <>
      <NavBar email={user.email} signOut={signOutAction} />
      <main className="mx-auto w-full max-w-6xl px-4 py-6 sm:py-8">{children}</main>
    </>
  );
}
