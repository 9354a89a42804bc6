/**
 * An OTLP logs request as both decoders (protobuf and JSON) hand it to the
 * mapper: every AnyValue already turned into JSON, ids into hex, times into
 * nanoseconds.
 */

/**
 * An AnyValue as JSON: int64 beyond 2^53 as a decimal string, bytes as
 * base64, a double that JSON cannot hold ("NaN", "Infinity") as a string,
 * a kvlist as an object, an empty AnyValue as null.
 */
export type OtlpValue = null | boolean | number | string | OtlpValue[] | { [key: string]: OtlpValue };
export type OtlpAttributes = { [key: string]: OtlpValue };

export type OtlpLogRecord = {
  /** Nanoseconds since the epoch; 0 when unknown. */
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  /** 0 (unspecified) to 24, as sent (an out-of-range number is kept and treated as unspecified). */
  severityNumber: number;
  severityText: string;
  /** Undefined when absent or an empty AnyValue. */
  body: OtlpValue | undefined;
  attributes: OtlpAttributes;
  attributeCount: number;
  droppedAttributesCount: number;
  flags: number;
  /** Lowercase hex; null when absent or invalid (wrong length, all zeroes). */
  traceId: string | null;
  spanId: string | null;
  eventName: string;
};

export type OtlpScope = { name: string; version: string; attributes: OtlpAttributes };

/** A record the decoder could not read (JSON only: protobuf fails as a whole), with the reason. */
export type UnreadableRecord = { unreadable: string };

export type OtlpScopeLogs = { scope: OtlpScope; records: Array<OtlpLogRecord | UnreadableRecord> };
export type OtlpResourceLogs = { resource: OtlpAttributes; scopeLogs: OtlpScopeLogs[] };
export type OtlpLogsRequest = { resourceLogs: OtlpResourceLogs[] };

/**
 * Sets `key` on `target` as an own property, even `__proto__` (which plain
 * assignment would turn into the object's prototype, dropping the value).
 */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Trace (16 bytes) or span (8 bytes) id as lowercase hex; null when the length is wrong or all bytes are zero. */
export function idToHex(bytes: Uint8Array, length: 8 | 16): string | null {
  if (bytes.length !== length) return null;
  let hex = "";
  let any = 0;
  for (const byte of bytes) {
    hex += HEX[byte];
    any |= byte;
  }
  return any === 0 ? null : hex;
}

const HEX_ID = { 8: /^[0-9a-fA-F]{16}$/, 16: /^[0-9a-fA-F]{32}$/ };

/** OTLP/JSON's hex id (case-insensitive) as lowercase hex; null when malformed or all zeroes. */
export function hexId(text: string, length: 8 | 16): string | null {
  if (!HEX_ID[length].test(text) || /^0+$/.test(text)) return null;
  return text.toLowerCase();
}

/** A double as JSON: the values JSON cannot hold become the strings the protobuf JSON mapping uses. */
export function doubleToJson(value: number): number | string {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
}

/** A 64-bit integer as JSON: a number when a double holds it exactly, else its decimal string. */
export function int64ToJson(value: bigint): number | string {
  return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value.toString();
}
