import { supportedTime } from "@/lib/events/time";

/**
 * Where the previous page stopped, in the sort order (time desc, id desc).
 * Opaque to clients: base64url of "v1.<time ms>.<event id>".
 */
export type CursorPosition = { at: Date; id: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const CURSOR_MESSAGE = "Not a valid cursor: pass nextCursor from a previous answer unchanged.";

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`v1.${position.at.getTime()}.${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names, or null when it is not one of ours. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^v1\.(\d{1,15})\.([0-9a-f-]{36})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match || !UUID.test(match[2]!)) return null;
  const at = supportedTime(Number(match[1]));
  return at ? { at, id: match[2]! } : null;
}
