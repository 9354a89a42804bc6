/**
 * Minimal structured logger: one JSON line per entry on stderr/stdout. Callers
 * pass ids and counts, never keys, tokens or links (see SECURITY in README).
 */
import { settings } from "@/lib/config/settings";

type Fields = Record<string, unknown>;

const SECRET_PATTERN = /tlt_[0-9A-Za-z]{20,}/g;

/** `level` is one of the logger's three below (the names of EVENT_LEVELS; the logger sits under lib/events). */
function write(level: string, msg: string, fields?: Fields) {
  if (silenced()) return;
  // Defence in depth: an API key that slipped into a message is masked.
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields }).replace(SECRET_PATTERN, "tlt_[redacted]");
  if (level === "info") console.log(line);
  else console.error(line);
}

export const logger = {
  info: (msg: string, fields?: Fields) => write("info", msg, fields),
  warn: (msg: string, fields?: Fields) => write("warn", msg, fields),
  error: (msg: string, fields?: Fields) => write("error", msg, fields),
};

/** A configuration that can't be parsed must not also silence the log that reports it. */
function silenced(): boolean {
  try {
    return settings().log.silent;
  } catch {
    return false;
  }
}
