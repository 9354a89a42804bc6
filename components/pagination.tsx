import Link from "next/link";
import { buttonClass } from "@/components/button";

/** Keyset pagination: back to the first page, or on to the next one (there is no "previous" with a cursor). */
export function Pagination({ firstHref, nextHref, firstLabel = "← Newest", nextLabel = "Older →" }: { firstHref?: string; nextHref?: string; firstLabel?: string; nextLabel?: string }) {
  if (!firstHref && !nextHref) return null;
  return (
    <nav aria-label="Pagination" className="flex justify-between gap-2">
      {firstHref ? (
        <Link href={firstHref} className={buttonClass("secondary", "sm")}>
          {firstLabel}
        </Link>
      ) : (
        <span />
      )}
      {nextHref && (
        <Link href={nextHref} className={buttonClass("secondary", "sm")}>
          {nextLabel}
        </Link>
      )}
    </nav>
  );
}
