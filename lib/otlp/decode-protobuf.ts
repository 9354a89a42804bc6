import protobuf from "protobufjs/light";
import { errors, type AppError } from "@/lib/http/errors";
import { MAX_LOG_RECORDS, MAX_PROTOBUF_MESSAGES } from "@/lib/otlp/limits";
import {
  doubleToJson,
  idToHex,
  int64ToJson,
  setKey,
  type OtlpAttributes,
  type OtlpLogRecord,
  type OtlpLogsRequest,
  type OtlpValue,
} from "@/lib/otlp/model";
import {
  ExportLogsServiceRequest,
  LogRecordType,
  type ProtoAnyValue,
  type ProtoExportLogsServiceRequest,
  type ProtoKeyValue,
  type ProtoLogRecord,
  type ProtoLong,
} from "@/lib/otlp/proto";
import { tooManyRecords, tooManyValues } from "@/lib/otlp/problems";

/**
 * Decodes a binary protobuf ExportLogsServiceRequest (already decompressed).
 * Throws a 400 for anything protobufjs cannot read (truncated, wrong wire
 * types, invalid UTF-8 in a string, nesting past protobuf's 100 levels),
 * and a 413 past the record or message budget, checked before decoding.
 */
export function decodeProtobufLogs(body: Uint8Array): OtlpLogsRequest {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  countMessages(buffer);
  let request: ProtoExportLogsServiceRequest;
  try {
    request = ExportLogsServiceRequest.decode(reader(buffer)) as unknown as ProtoExportLogsServiceRequest;
  } catch (error) {
    throw notProtobuf(error);
  }
  return {
    resourceLogs: request.resourceLogs.map((resourceLogs) => ({
      resource: attributesToJson(resourceLogs.resource?.attributes ?? []),
      scopeLogs: resourceLogs.scopeLogs.map((scopeLogs) => ({
        scope: {
          name: scopeLogs.scope?.name ?? "",
          version: scopeLogs.scope?.version ?? "",
          attributes: attributesToJson(scopeLogs.scope?.attributes ?? []),
        },
        records: scopeLogs.logRecords.map(recordToModel),
      })),
    })),
  };
}

function reader(buffer: Buffer): protobuf.Reader {
  const r = protobuf.Reader.create(buffer);
  // Unknown fields are skipped, not kept as raw slices (an allocation each).
  r.discardUnknown = true;
  return r;
}

function notProtobuf(error: unknown): AppError {
  const reason = error instanceof Error ? error.message : String(error);
  const why = /utf-?8/i.test(reason)
    ? "a string field is not valid UTF-8"
    : /max depth/i.test(reason)
      ? "it nests deeper than 100 levels"
      : /index out of range/i.test(reason)
        ? "it is truncated or a length is wrong"
        : reason;
  return errors.validation(
    [{ path: "body", message: `Not a valid protobuf ExportLogsServiceRequest: ${why}.` }],
    `The body is not a valid OTLP protobuf ExportLogsServiceRequest (${why}).`,
  );
}

/**
 * Walks the wire format once, with protobufjs's own reader and the schema,
 * counting messages and log records without building any: an empty message
 * is two bytes on the wire and about 75 in memory once decoded, so the
 * budget is checked before protobufjs decodes (and allocates) anything.
 * It reads what the decoder reads (tags, lengths, skipped fields), so a
 * body it finds malformed is refused here.
 */
function countMessages(buffer: Buffer): void {
  const budget = { messages: 0, records: 0 };
  try {
    walk(ExportLogsServiceRequest, reader(buffer), buffer.length, 0, budget);
  } catch (error) {
    if (error instanceof OverBudget) throw error.kind === "records" ? tooManyRecords() : tooManyValues();
    throw notProtobuf(error);
  }
}

class OverBudget extends Error {
  constructor(readonly kind: "records" | "messages") {
    super(kind);
  }
}

function walk(type: protobuf.Type, r: protobuf.Reader, end: number, depth: number, budget: { messages: number; records: number }): void {
  if (++budget.messages > MAX_PROTOBUF_MESSAGES) throw new OverBudget("messages");
  if (type === LogRecordType && ++budget.records > MAX_LOG_RECORDS) throw new OverBudget("records");
  if (depth > protobuf.util.recursionLimit) throw new Error("max depth exceeded");
  while (r.pos < end) {
    const tag = r.uint32();
    const wireType = tag & 7;
    const child = type.fieldsById[tag >>> 3]?.resolvedType;
    if (wireType === 2 && child instanceof protobuf.Type) {
      const childEnd = r.uint32() + r.pos;
      if (childEnd > end) throw new RangeError("index out of range");
      walk(child, r, childEnd, depth + 1, budget);
    } else {
      r.skipType(wireType);
    }
  }
  if (r.pos !== end) throw new RangeError("index out of range");
}

function recordToModel(record: ProtoLogRecord): OtlpLogRecord {
  return {
    timeUnixNano: longToBigInt(record.timeUnixNano),
    observedTimeUnixNano: longToBigInt(record.observedTimeUnixNano),
    severityNumber: record.severityNumber,
    severityText: record.severityText,
    body: record.body ? anyValueToJson(record.body) : undefined,
    attributes: attributesToJson(record.attributes),
    attributeCount: record.attributes.length,
    droppedAttributesCount: record.droppedAttributesCount,
    flags: record.flags,
    traceId: idToHex(record.traceId, 16),
    spanId: idToHex(record.spanId, 8),
    eventName: record.eventName,
  };
}

const TWO_32 = 4294967296;

/** An unsigned 64-bit field (fixed64) as a bigint. */
function longToBigInt(value: ProtoLong): bigint {
  if (typeof value === "number") return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

/** A signed 64-bit field (int64) as JSON: a number when exact, else a decimal string. */
function int64Json(value: ProtoLong): number | string {
  if (typeof value === "number") return value;
  // Exact whenever the result is a safe integer (rounding is monotonic, so a
  // true value past 2^53 never rounds to a safe one).
  const approx = value.high * TWO_32 + (value.low >>> 0);
  if (Number.isSafeInteger(approx)) return approx;
  return int64ToJson(BigInt.asIntN(64, (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0)));
}

/**
 * An AnyValue as JSON (undefined when empty): the field present on the
 * wire, read by presence (see proto.ts). Nesting is bounded by the
 * decoder's depth limit.
 */
function anyValueToJson(value: ProtoAnyValue): OtlpValue | undefined {
  if (Object.hasOwn(value, "stringValue")) return value.stringValue!;
  if (Object.hasOwn(value, "intValue")) return int64Json(value.intValue!);
  if (Object.hasOwn(value, "boolValue")) return value.boolValue!;
  if (Object.hasOwn(value, "doubleValue")) return doubleToJson(value.doubleValue!);
  if (Object.hasOwn(value, "kvlistValue")) return attributesToJson(value.kvlistValue?.values ?? []);
  if (Object.hasOwn(value, "arrayValue")) return (value.arrayValue?.values ?? []).map((item) => anyValueToJson(item) ?? null);
  if (Object.hasOwn(value, "bytesValue")) {
    const bytes = value.bytesValue!;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  }
  return undefined;
}

function attributesToJson(list: ProtoKeyValue[]): OtlpAttributes {
  const out: OtlpAttributes = {};
  for (const { key, value } of list) setKey(out, key, value ? (anyValueToJson(value) ?? null) : null);
  return out;
}
