/** `1 event`, `1,234 events`: a count with its noun, for text people read (digests, mails). */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}
