/** `event` or `events`: the noun for a count. The one plural rule (a lint rule keeps copies out). */
export function pluralWord(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/** `1 event`, `1,234 events`: a count with its noun, for text people read (digests, mails). */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${pluralWord(n, word)}`;
}
