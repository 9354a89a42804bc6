import { STACK_LIMITS } from "@/lib/grouping/frames";
import { isRecord, type Notes } from "@/lib/sentry/fields";
import { MAX_EVENT_BYTES, type MappedEvent } from "@/lib/sentry/types";
import { plural } from "@/lib/text/plural";

/**
 * Fitting an event into 1 MiB (SPEC: "breadcrumbs, then frames in the
 * middle of long stacks, then extra are trimmed, as Sentry does, and the
 * event says what was trimmed"), in that order, each step only while the
 * event is still too large, then a last resort that always succeeds: long
 * strings truncated, frames cut further, then the largest context entries
 * replaced by a note of their size.
 *
 * Trimming runs before the issue key is computed, and the key reads the
 * newest frames of each stack (STACK_LIMITS.maxFramesPerException): the
 * middle-frames step keeps those, so a large event groups with the same
 * error sent small. Only the last resort cuts into them.
 */

/** Payloads up to this size cannot map to more than 1 MiB (numbers quoted, notes added: well under 2x). */
const SURELY_FITS_BYTES = 400 * 1024;
/** Room kept for the trimming notes themselves. */
const NOTES_ROOM_BYTES = 8 * 1024;
/** A stack is long past this many frames: it keeps its oldest LONG_STACK_OLDEST and the newest frames grouping reads. */
const LONG_STACK_OLDEST = 50;
/** The last resort's rounds: frames a stack keeps, the oldest and the newest halves. */
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

  // 2. Frames in the middle of long stacks, never the newest ones the issue key reads.
  const stacks = stacktracesOf(context);
  const sentLengths = new Map<Record<string, unknown>, number>();
  const long = cutFrames(stacks, LONG_STACK_OLDEST, STACK_LIMITS.maxFramesPerException, sentLengths);
  if (long.frames > 0) {
    notes.push(`frames: ${long.frames} dropped from the middle of ${plural(long.stacks, "stack")}`);
    size = eventBytes(event);
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

  // 4. Last resort: long strings, then frames of any stack, then whole entries of the context, largest first.
  const cut = truncateStrings(context);
  if (cut > 0) {
    notes.push(`text: ${plural(cut, "string")} longer than ${LONG_STRING_CHARS} characters truncated`);
    size = eventBytes(event);
    if (size <= target) return;
  }
  // Frames a stack of any length holds with what the strings kept (local
  // variables, source lines), cut down in rounds before whole entries go.
  let framesDropped = 0;
  let stacksCut = 0;
  for (const keep of FRAME_ROUNDS) {
    const round = cutFrames(stacks, Math.ceil(keep / 2), Math.floor(keep / 2), sentLengths);
    if (round.frames === 0) continue;
    framesDropped += round.frames;
    stacksCut = Math.max(stacksCut, round.stacks);
    size = eventBytes(event);
    if (size <= target) break;
  }
  if (framesDropped > 0) {
    notes.push(`frames: ${framesDropped} more dropped from the middle of ${plural(stacksCut, "stack")}`);
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

/**
 * Keeps the `oldest` and `newest` frames of each stack longer than both,
 * dropping the middle, and sets Sentry's `frames_omitted` (the [start, end)
 * range of the frames as sent that were left out). `sent` remembers each
 * cut stack's length as sent, across calls. Returns how many frames went
 * from how many stacks.
 */
function cutFrames(stacks: Record<string, unknown>[], oldest: number, newest: number, sent: Map<Record<string, unknown>, number>): { frames: number; stacks: number } {
  let frames = 0;
  let cut = 0;
  for (const stack of stacks) {
    const list = stack.frames as unknown[];
    if (list.length <= oldest + newest) continue;
    if (!sent.has(stack)) sent.set(stack, list.length);
    frames += list.length - oldest - newest;
    cut++;
    list.splice(oldest, list.length - oldest - newest);
    stack.frames_omitted = [oldest, sent.get(stack)! - newest];
  }
  return { frames, stacks: cut };
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
