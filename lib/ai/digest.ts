import { formatUtc, LEVEL_RANK, truncate, type EventGroup } from "@/lib/ai/group-events";
import type { EventLevel } from "@/lib/events/recent";
import { NEW_LOOKBACK_EVENTS } from "@/lib/events/recent";

const TOP_MESSAGES = 10;
const NEW_SHOWN = 5;
const DIGEST_MESSAGE_CHARS = 160;

export type DigestInput = {
  groups: EventGroup[];
  eventCount: number;
  since: Date | null;
  oldest: Date;
  newest: Date;
  /** Whether "new" flags were computed (they are unless the lookup was skipped). */
  newnessKnown: boolean;
};

const LEVEL_WORDS: Record<EventLevel, [string, string]> = {
  error: ["error", "errors"],
  warn: ["warning", "warnings"],
  info: ["info", "info"],
};

/**
 * The built-in summary used when no model is configured: deterministic
 * plain text (same events, same text) with counts by level and by project,
 * the most frequent messages, first and last seen, and what is new in the
 * window. Times are absolute (UTC) so a cached digest never goes stale.
 */
export function buildDigest(input: DigestInput): string {
  const { groups } = input;
  const levels = countByLevel(groups);
  const projects = countByProject(groups);
  const out: string[] = [];

  const window = input.since
    ? `since ${formatUtc(input.since)}`
    : `the newest ${input.eventCount}, ${formatUtc(input.oldest)} to ${formatUtc(input.newest)}`;
  out.push(
    `${plural(input.eventCount, "event")} from ${plural(projects.length, "project")} (${window}).`,
    `By level: ${levelList(levels)}.`,
  );

  const worst = groups[0];
  if (worst && worst.level !== "info") {
    out.push(
      `Look first at: [${worst.level}] ${worst.projectName}: "${oneLine(worst.message, worst.messageLength)}" (${times(worst.count)}, last ${formatUtc(worst.lastSeen)}).`,
    );
  }

  out.push("", "By project:");
  for (const p of projects) out.push(`  ${oneLine(p.name, p.name.length, 60)}: ${p.total} (${levelList(p.levels)})`);

  const frequent = [...groups]
    .sort((a, b) => b.count - a.count || LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || b.lastSeen.getTime() - a.lastSeen.getTime())
    .slice(0, TOP_MESSAGES);
  out.push("", `Most frequent messages (${frequent.length} of ${plural(groups.length, "distinct message")}):`);
  frequent.forEach((g, i) => {
    out.push(
      `  ${i + 1}. [${g.level}] ${oneLine(g.projectName, g.projectName.length, 60)}: "${oneLine(g.message, g.messageLength)}"${g.isNew ? " (new)" : ""}`,
      `     ${times(g.count)}, first ${formatUtc(g.firstSeen)}, last ${formatUtc(g.lastSeen)}`,
    );
  });

  if (input.newnessKnown) {
    const fresh = groups.filter((g) => g.isNew);
    out.push("", `New in this window (not seen in the ${NEW_LOOKBACK_EVENTS.toLocaleString("en-US")} events of its project just before it): ${fresh.length === 0 ? "nothing." : ""}`.trimEnd());
    for (const g of fresh.slice(0, NEW_SHOWN)) {
      out.push(`  - [${g.level}] ${oneLine(g.projectName, g.projectName.length, 60)}: "${oneLine(g.message, g.messageLength)}", ${times(g.count)} since ${formatUtc(g.firstSeen)}`);
    }
    if (fresh.length > NEW_SHOWN) out.push(`  … and ${fresh.length - NEW_SHOWN} more.`);
  }

  return out.join("\n");
}

type LevelCounts = Record<EventLevel, number>;

function countByLevel(groups: EventGroup[]): LevelCounts {
  const counts: LevelCounts = { error: 0, warn: 0, info: 0 };
  for (const g of groups) counts[g.level] += g.count;
  return counts;
}

function countByProject(groups: EventGroup[]): { name: string; total: number; levels: LevelCounts }[] {
  const byId = new Map<string, { name: string; total: number; levels: LevelCounts }>();
  for (const g of groups) {
    const entry = byId.get(g.projectId) ?? { name: g.projectName, total: 0, levels: { error: 0, warn: 0, info: 0 } };
    entry.total += g.count;
    entry.levels[g.level] += g.count;
    byId.set(g.projectId, entry);
  }
  return [...byId.values()].sort(
    (a, b) => b.levels.error - a.levels.error || b.total - a.total || a.name.localeCompare(b.name),
  );
}

function levelList(counts: LevelCounts): string {
  return (Object.keys(LEVEL_WORDS) as EventLevel[])
    .map((level) => `${counts[level]} ${LEVEL_WORDS[level][counts[level] === 1 ? 0 : 1]}`)
    .join(", ");
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

function times(n: number): string {
  return n === 1 ? "once" : `${n.toLocaleString("en-US")} times`;
}

/** Newlines and control characters become spaces so that one message stays one line. */
function oneLine(text: string, fullLength: number, max = DIGEST_MESSAGE_CHARS): string {
  // eslint-disable-next-line no-control-regex
  return truncate(text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " "), max, fullLength);
}
