import { isRecord, type Notes } from "@/lib/sentry/fields";
import { MAX_EVENT_BYTES, type MappedEvent } from "@/lib/sentry/types";
import { plural } from "@/lib/text/plural";

/**
 * Fitting an event into 1 MiB (SPEC: "breadcrumbs, then frames in the
 * middle of long stacks, then extra are trimmed, as Sentry does, and the
 * event says what was trimmed"), in that order, each step only while the
 * event is still too large, then a last resort that always succeeds: long
 * strings truncated, then the largest context entries replaced by a note
 * of their size.
 */

/** Payloads up to this size cannot map to more than 1 MiB (numbers quoted, notes added: well under 2x). */
const SURELY_FITS_BYTES = 400 * 1024;
/** Room kept for the trimming notes themselves. */
const NOTES_ROOM_BYTES = 8 * 1024;
/** Frames a long stack keeps, the oldest and the newest halves, in successive rounds. */
const FRAME_ROUNDS = [50, 20, 10, 4];
/** Strings are cut to this many characters in the last-resort round. */
const LONG_STRING_CHARS = 1_000;

function eventBytes(event: MappedEvent): number {
  return Buffer.byteLength(
    JSON.stringify([event.message, event.context, event.tags, event.user, event.fingerprint, event.release, event.environment]),
  );
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? "");

/**
 * Trims `event` in place until it serializes to at most `maxBytes`, noting
 * each step in `notes`. `payloadBytes` (the size the SDK sent) lets small
 * events skip measuring.
 */
export function fitEvent(event: MappedEvent, notes: Notes, payloadBytes?: number, maxBytes = MAX_EVENT_BYTES): void {
  if (payloadBytes !== undefined && payloadBytes <= SURELY_FITS_BYTES && maxBytes >= MAX_EVENT_BYTES) return;
  const target = maxBytes - NOTES_ROOM_BYTES;
  let size = eventBytes(event);
  if (size <= target) return;
  const context = event.context ?? {};

  // 1. Breadcrumbs, oldest first.
  const crumbs = isRecord(context.breadcrumbs) && Array.isArray(context.breadcrumbs.values) ? (context.breadcrumbs.values as unknown[]) : null;
  if (crumbs && crumbs.length > 0) {
    const total = crumbs.length;
    let excess = size - target;
    let drop = 0;
    while (drop < total && excess > 0) excess -= jsonBytes(crumbs[drop++]) + 1;
    crumbs.splice(0, drop);
    notes.push(`breadcrumbs: ${drop} of ${total} dropped to fit ${maxBytes} bytes`);
    size = eventBytes(event);
    if (size <= target) return;
  }

  // 2. Frames in the middle of long stacks.
  const stacks = stacktracesOf(context);
  let framesDropped = 0;
  const originalLength = new Map<Record<string, unknown>, number>();
  for (const keep of FRAME_ROUNDS) {
    for (const stack of stacks) {
      const frames = stack.frames as unknown[];
      if (frames.length <= keep) continue;
      if (!originalLength.has(stack)) originalLength.set(stack, frames.length);
      // The oldest and newest halves stay (successive rounds keep halves of halves).
      const head = Math.ceil(keep / 2);
      framesDropped += frames.length - keep;
      frames.splice(head, frames.length - keep);
      // Sentry's own field for it: the [start, end) range of the frames left out.
      stack.frames_omitted = [head, originalLength.get(stack)! - (keep - head)];
    }
    if (framesDropped === 0) continue;
    size = eventBytes(event);
    if (size <= target) break;
  }
  const stacksCut = originalLength;
  if (framesDropped > 0) {
    notes.push(`frames: ${framesDropped} dropped from the middle of ${plural(stacksCut.size, "stack")}`);
    if (size <= target) return;
  }

  // 3. Extra, the largest entries first.
  if (isRecord(context.extra)) {
    const extra = context.extra;
    const keys = Object.keys(extra);
    const sized = keys.map((key) => ({ key, bytes: jsonBytes(extra[key]) + key.length + 4 })).sort((a, b) => b.bytes - a.bytes);
    let excess = size - target;
    let dropped = 0;
    for (const { key, bytes } of sized) {
      if (excess <= 0) break;
      delete extra[key];
      excess -= bytes;
      dropped++;
    }
    if (dropped > 0) {
      notes.push(`extra: ${dropped} of ${keys.length} entries dropped`);
      size = eventBytes(event);
      if (size <= target) return;
    }
  }

  // 4. Last resort: long strings, then whole entries of the context, largest first.
  const cut = truncateStrings(context);
  if (cut > 0) {
    notes.push(`text: ${plural(cut, "string")} longer than ${LONG_STRING_CHARS} characters truncated`);
    size = eventBytes(event);
    if (size <= target) return;
  }
  const entries = Object.keys(context)
    .filter((key) => key !== "_telltale")
    .map((key) => ({ key, bytes: jsonBytes(context[key]) }))
    .sort((a, b) => b.bytes - a.bytes);
  let excess = size - target;
  for (const { key, bytes } of entries) {
    if (excess <= 0) break;
    context[key] = `[removed: ${bytes} bytes]`;
    excess -= bytes;
    notes.push(`${key}: removed (${bytes} bytes)`);
  }
  // What is left (message <= 10,000 characters, 50 short tags, the user) fits.
  if (excess > 0 && event.tags) {
    event.tags = null;
    notes.push("tags: removed");
  }
}

/** Every `{frames: [...]}` of the context: exceptions, threads, a top-level stacktrace. */
function stacktracesOf(context: Record<string, unknown>): Record<string, unknown>[] {
  const stacks: Record<string, unknown>[] = [];
  const add = (stack: unknown) => {
    if (isRecord(stack) && Array.isArray(stack.frames)) stacks.push(stack);
  };
  for (const holder of [context.exception, context.threads]) {
    if (isRecord(holder) && Array.isArray(holder.values)) for (const value of holder.values) if (isRecord(value)) add(value.stacktrace);
  }
  add(context.stacktrace);
  return stacks;
}

/** Cuts every string longer than LONG_STRING_CHARS in `value` (in place); returns how many. */
function truncateStrings(value: unknown): number {
  let count = 0;
  const visit = (holder: Record<string, unknown> | unknown[], key: string | number) => {
    const item = (holder as Record<string | number, unknown>)[key];
    if (typeof item === "string") {
      if (item.length > LONG_STRING_CHARS) {
        (holder as Record<string | number, unknown>)[key] = `${cutText(item, LONG_STRING_CHARS)}… [${item.length - LONG_STRING_CHARS} characters cut]`;
        count++;
      }
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++) visit(item, i);
    } else if (isRecord(item)) {
      for (const k of Object.keys(item)) visit(item, k);
    }
  };
  if (isRecord(value)) for (const k of Object.keys(value)) visit(value, k);
  return count;
}

/** The first `max` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair. */
export function cutText(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Writes the notes into `context._telltale.trimmed`, when there are any. */
export function recordNotes(event: MappedEvent, notes: Notes): void {
  if (notes.length === 0) return;
  const context = event.context ?? (event.context = {});
  context._telltale = { trimmed: notes };
}
