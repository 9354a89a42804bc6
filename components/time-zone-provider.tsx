"use client";

import { useEffect } from "react";
import { rememberTimeZoneInCookie, ServerTimeZoneContext } from "@/components/use-time-zone";

/** Gives the dashboard's times the zone the server rendered them in, and keeps the cookie current. */
export function TimeZoneProvider({ serverZone, children }: { serverZone: string | null; children: React.ReactNode }) {
  useEffect(() => {
    rememberTimeZoneInCookie();
  }, []);
  return <ServerTimeZoneContext value={serverZone}>{children}</ServerTimeZoneContext>;
}
