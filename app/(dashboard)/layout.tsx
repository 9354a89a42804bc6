import { cookies } from "next/headers";
import { NavBar } from "@/components/nav-bar";
import { parseTimeZoneCookie, TIME_ZONE_COOKIE } from "@/components/time-zone-cookie";
import { TimeZoneProvider } from "@/components/time-zone-provider";
import { signOut } from "@/lib/sign-in/config";
import { requireUser } from "./session";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  const serverZone = parseTimeZoneCookie((await cookies()).get(TIME_ZONE_COOKIE)?.value);

  async function signOutAction() {
    "use server";
    await signOut({ redirectTo: "/signin" });
  }

  return (
    <>
      <NavBar email={user.email} signOut={signOutAction} />
      <main className="mx-auto w-full max-w-6xl px-4 py-6 sm:py-8">
        <TimeZoneProvider serverZone={serverZone}>{children}</TimeZoneProvider>
      </main>
    </>
  );
}
