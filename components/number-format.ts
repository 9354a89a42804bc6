const grouped = new Intl.NumberFormat("en-US");

/** 1234 -> "1,234". */
export function formatCount(n: number): string {
  return grouped.format(n);
}

/**
 * Short numbers for tight places (chart axes, badges): 999, 1.2k, 12k, 1.2M,
 * 3.4B. One decimal below ten units, none above, never rounded up into the
 * next unit's name ("999.5k" is "1M", not "1000k").
 */
export function compactNumber(n: number): string {
  const sign = n < 0 ? "-" : "";
  const units = ["", "k", "M", "B", "T"];
  let value = Math.abs(n);
  let unit = 0;
  const rounded = (v: number, u: number) => Number(v.toFixed(u === 0 || v >= 10 ? 0 : 1));
  // Move up a unit while the rounded value would read 1000 or more.
  while (unit < units.length - 1 && rounded(value, unit) >= 1000) {
    value /= 1000;
    unit++;
  }
  const text = unit === 0 && !Number.isInteger(value) ? String(Number(value.toFixed(1))) : String(rounded(value, unit));
  return `${sign}${text}${units[unit]}`;
}
