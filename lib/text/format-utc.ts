/** `2026-11-22 09:14 UTC` (seconds on request): the one way times are written for people in summaries and alerts. */
export function formatUtc(date: Date, withSeconds = false): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}
