/**
 * The chaos run's table (one row per phase) and its list of failures.
 * harness/chaos/README.md explains every column.
 */
import type { EntryResult, FuzzOutcome } from "@/harness/chaos/fuzz";
import type { IngestLoad, StoredVerdict } from "@/harness/chaos/load";

export type Row = {
  phase: string;
  requests: number;
  clean4xx: number;
  created2xx: number;
  unavailable503: number;
  other5xx: number;
  hangs: number;
  failedChecks: number;
  wronglyStored: number;
  acknowledged: number;
  lost: number;
  serverErrors: number;
  /** Slowest recovery of the phase, in seconds ("-" where not measured). */
  recoveryS: string;
};

export const COLUMNS: [keyof Row, string][] = [
  ["phase", "phase"],
  ["requests", "requests"],
  ["clean4xx", "clean 4xx"],
  ["created2xx", "2xx"],
  ["unavailable503", "503"],
  ["other5xx", "other 5xx"],
  ["hangs", "hangs"],
  ["failedChecks", "failed checks"],
  ["wronglyStored", "wrongly stored"],
  ["acknowledged", "acknowledged"],
  ["lost", "lost"],
  ["serverErrors", "server errors logged"],
  ["recoveryS", "recovery s"],
];

export const MUST_BE_ZERO = ["other5xx", "hangs", "failedChecks", "wronglyStored", "lost", "serverErrors"] as const satisfies readonly (keyof Row)[];

export const columnLabel = (key: keyof Row) => COLUMNS.find(([c]) => c === key)![1];

export type Failure = { phase: string; what: string; detail: string };

export function emptyRow(phase: string): Row {
  return { phase, requests: 0, clean4xx: 0, created2xx: 0, unavailable503: 0, other5xx: 0, hangs: 0, failedChecks: 0, wronglyStored: 0, acknowledged: 0, lost: 0, serverErrors: 0, recoveryS: "-" };
}

export function slowestRecovery(current: string, seconds: number | null): string {
  if (seconds === null) return current;
  const previous = current === "-" ? -1 : Number(current);
  return seconds > previous ? seconds.toFixed(1) : current;
}

export function totalRow(rows: Row[]): Row {
  const total = emptyRow("total");
  for (const r of rows) {
    for (const [key] of COLUMNS) if (typeof total[key] === "number") (total[key] as number) += r[key] as number;
    if (r.recoveryS !== "-") total.recoveryS = slowestRecovery(total.recoveryS, Number(r.recoveryS));
  }
  return total;
}

export function fuzzRow(f: FuzzOutcome & { stateChanges: string[] }): Row {
  const row = emptyRow("fuzz (corpus)");
  for (const r of f.results) {
    row.requests++;
    const hung = r.failures.some((x) => x.includes("(a hang)"));
    if (hung) row.hangs++;
    else if (r.got >= 200 && r.got < 300) row.created2xx++;
    else if (r.got === 503) row.unavailable503++;
    else if (r.got >= 500) row.other5xx++;
    else if (r.failures.length === 0) row.clean4xx++;
    if (r.failures.length) row.failedChecks++;
    row.wronglyStored += Math.max(0, r.stored - r.expectedStored);
    if (r.got >= 200 && r.got < 300) row.acknowledged += r.expectedStored;
    row.lost += Math.max(0, r.expectedStored - r.stored);
    row.serverErrors += r.serverErrors.length;
  }
  row.wronglyStored += f.unattributedRows + f.alteredRows.length + f.stateChanges.length;
  return row;
}

/** Adds one load cycle; only 201, and 503 with Retry-After, are acceptable answers. */
export function addLoad(row: Row, load: IngestLoad, verdict: StoredVerdict, serverErrors: number): void {
  const s = load.stats;
  const otherStatuses = Object.values(s.otherStatuses).reduce((a, b) => a + b, 0);
  row.requests += s.requests;
  row.created2xx += s.created;
  row.unavailable503 += s.unavailable;
  row.other5xx += s.otherServerErrors;
  row.hangs += s.hangs;
  row.clean4xx += Object.entries(s.otherStatuses).filter(([k]) => k.startsWith("4")).reduce((a, [, n]) => a + n, 0);
  row.failedChecks += otherStatuses + s.unavailableWithoutRetryAfter;
  row.wronglyStored += verdict.altered.length + verdict.duplicated;
  row.acknowledged += s.acknowledged.size;
  row.lost += verdict.lost.length;
  row.serverErrors += serverErrors;
}

export function loadFailures(phase: string, load: IngestLoad, verdict: StoredVerdict, errorLines: string[]): Failure[] {
  const s = load.stats;
  const out: Failure[] = [];
  for (const [status, n] of Object.entries(s.otherStatuses)) out.push({ phase, what: `answer ${status}`, detail: `${n} request(s): only 201, or 503 with Retry-After, is acceptable` });
  if (s.unavailableWithoutRetryAfter) out.push({ phase, what: "503 without Retry-After", detail: `${s.unavailableWithoutRetryAfter} answer(s)` });
  if (s.hangs) out.push({ phase, what: "hangs", detail: `${s.hangs} request(s) had no answer within ${load.timeoutMs / 1000} s` });
  if (verdict.lost.length) out.push({ phase, what: "acknowledged events lost", detail: `${verdict.lost.length}, e.g. ${verdict.lost.slice(0, 3).join(", ")}` });
  for (const a of verdict.altered.slice(0, 5)) out.push({ phase, what: "stored altered", detail: a });
  if (verdict.duplicated) out.push({ phase, what: "stored twice", detail: `${verdict.duplicated} extra row(s) for messages sent once` });
  // The same fault repeats under load: list each distinct line once, with its count.
  const distinct = new Map<string, number>();
  for (const line of errorLines) {
    const key = line.replace(/"(time|requestId)":"[^"]*",?/g, "").slice(0, 300);
    distinct.set(key, (distinct.get(key) ?? 0) + 1);
  }
  for (const [line, n] of distinct) out.push({ phase, what: `server error logged ${n}x`, detail: line });
  return out;
}

export function printTable(rows: Row[]): void {
  const cells = rows.map((r) => COLUMNS.map(([key]) => String(r[key])));
  const headers = COLUMNS.map(([key, label]) => ((MUST_BE_ZERO as readonly string[]).includes(key) ? `${label}*` : label));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) => `| ${values.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join(" | ")} |`;
  console.log(line(headers));
  console.log(`|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
  for (const row of cells) console.log(line(row));
  console.log("* must be 0");
}

/** Failures grouped by phase; the fuzz phase's by corpus category, each entry with expected and got. */
export function printFailures(failures: Failure[], fuzz: EntryResult[]): void {
  if (failures.length === 0) return;
  console.log("\nFailures:");
  const byPhase = new Map<string, Failure[]>();
  for (const f of failures) byPhase.set(f.phase, [...(byPhase.get(f.phase) ?? []), f]);
  for (const [phase, list] of byPhase) {
    console.log(`\n  ${phase}:`);
    if (phase === "fuzz") {
      const byCategory = new Map<string, EntryResult[]>();
      for (const r of fuzz.filter((x) => x.failures.length)) byCategory.set(r.category, [...(byCategory.get(r.category) ?? []), r]);
      for (const [category, results] of byCategory) {
        console.log(`    [${category}] ${results.length} entr${results.length === 1 ? "y" : "ies"}`);
        for (const r of results) {
          console.log(`      - ${r.name}: got ${r.got}${r.code ? ` ${r.code}` : ""}${r.location ? ` -> ${r.location}` : ""}, expected ${r.expected.join("/")}; ${r.failures.join("; ")}`);
          if (r.serverErrors[0]) console.log(`          log: ${r.serverErrors[0].slice(0, 240)}`);
        }
      }
      for (const f of list.filter((x) => !fuzz.some((r) => r.name === x.what))) console.log(`    - ${f.what}: ${f.detail}`);
    } else {
      for (const f of list) console.log(`    - ${f.what}: ${f.detail.slice(0, 600)}`);
    }
  }
}
