import { z } from "zod";
import { errors } from "@/lib/http/errors";
import { zodProblems } from "@/lib/http/input";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_LOG_RECORDS } from "@/lib/otlp/limits";
import {
  doubleToJson,
  hexId,
  int64ToJson,
  setKey,
  type OtlpAttributes,
  type OtlpLogRecord,
  type OtlpLogsRequest,
  type OtlpValue,
} from "@/lib/otlp/model";
import { tooManyRecords, tooManyValues } from "@/lib/otlp/problems";

/**
 * Decodes an OTLP/JSON ExportLogsServiceRequest (already decompressed), as
 * the OTLP/HTTP specification describes it: protobuf's JSON mapping with
 * lowerCamelCase names (the proto names are accepted too, as protobuf's
 * JSON parsers do), trace and span ids in hex, 64-bit integers as strings
 * or numbers, enums as numbers (their names accepted), unknown fields
 * ignored. Whole-request problems (not UTF-8, not JSON, the wrong shape
 * above the records, too deep, too many values) throw; a record that does
 * not fit the schema comes back as an unreadable record with the reason,
 * for the answer's `partialSuccess`.
 */
export function decodeJsonLogs(body: Uint8Array): OtlpLogsRequest {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw errors.invalidJson("The request body is not valid UTF-8.");
  }
  if (text.trim() === "") throw errors.invalidJson("The request body is empty; send one OTLP/JSON ExportLogsServiceRequest object.");
  let value: unknown;
  try {
    value = JSON.parse(quoteUnsafeIntegers(text));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw errors.invalidJson(`The request body is not valid JSON. ${error.message}`);
  }

  const envelope = otlpJsonLogsRequestSchema.safeParse(value);
  if (!envelope.success) throw errors.validation(zodProblems(envelope.error.issues, { root: "body" }));
  let count = 0;
  for (const resourceLogs of envelope.data.resourceLogs) for (const scopeLogs of resourceLogs.scopeLogs) count += scopeLogs.logRecords.length;
  if (count > MAX_LOG_RECORDS) throw tooManyRecords();

  return {
    resourceLogs: envelope.data.resourceLogs.map((resourceLogs) => ({
      resource: resourceLogs.resource.attributes,
      scopeLogs: resourceLogs.scopeLogs.map((scopeLogs) => ({
        scope: scopeLogs.scope,
        records: scopeLogs.logRecords.map((record) => {
          const parsed = otlpJsonLogRecordSchema.safeParse(record);
          if (parsed.success) return parsed.data;
          const issue = zodProblems(parsed.error.issues, { root: "record" })[0]!;
          return { unreadable: `${issue.path}: ${issue.message}` };
        }),
      })),
    })),
  };
}

/**
 * One pass over the text before JSON.parse: refuses nesting past
 * MAX_JSON_DEPTH and more than MAX_JSON_VALUES values (JSON.parse would build
 * them all first), and quotes every integer a double cannot hold exactly, so
 * an int64 sent as a bare number (timeUnixNano, intValue) keeps its digits:
 * the schema reads int64 fields from strings anyway, as the JSON mapping allows.
 */
export function quoteUnsafeIntegers(text: string): string {
  const n = text.length;
  let depth = 0;
  let values = 0;
  let cuts: number[] | null = null;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let end = i + 1;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) throw new SyntaxError("Unterminated string in JSON.");
        let backslashes = 0;
        for (let j = end - 1; j > i && text.charCodeAt(j) === 92; j--) backslashes++;
        if (backslashes % 2 === 0) break;
        end++;
      }
      i = end + 1;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > MAX_JSON_DEPTH) throw errors.validation([{ path: "body", message: `Nesting is deeper than ${MAX_JSON_DEPTH} levels.` }]);
      if (++values > MAX_JSON_VALUES) throw tooManyValues();
      i++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      i++;
    } else if (c === 44 /* , */) {
      if (++values > MAX_JSON_VALUES) throw tooManyValues();
      i++;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i++;
      let plainInteger = true;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) i++;
        else if (d === 46 || d === 101 || d === 69 || d === 43 || d === 45) {
          plainInteger = false;
          i++;
        } else break;
      }
      if (plainInteger && i - start > 15 && !Number.isSafeInteger(Number(text.slice(start, i)))) (cuts ??= []).push(start, i);
    } else {
      i++;
    }
  }
  if (!cuts) return text;
  let out = "";
  let from = 0;
  for (let k = 0; k < cuts.length; k += 2) {
    out += `${text.slice(from, cuts[k])}"${text.slice(cuts[k], cuts[k + 1])}"`;
    from = cuts[k + 1]!;
  }
  return out + text.slice(from);
}

// ---- Schemas (protobuf's JSON mapping of the OTLP messages) ----

/** Protobuf's JSON parsers accept the proto field names (`time_unix_nano`) besides lowerCamelCase. */
function protoNames(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  let copy: Record<string, unknown> | null = null;
  for (const key of Object.keys(value)) {
    if (!key.includes("_")) continue;
    const camel = key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    if (camel !== key && !(camel in value)) (copy ??= { ...value })[camel] = (value as Record<string, unknown>)[key];
  }
  return copy ?? value;
}

/** A message: an object (unknown fields ignored), null meaning "absent", proto names accepted. */
function message<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess(protoNames, z.object(shape, { error: "Must be an object." }));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const integerText = z.union([z.number().int("Must be an integer."), z.string().regex(/^-?\d{1,20}$/, "Must be an integer (a number or a decimal string).")], {
  error: "Must be an integer (a number or a decimal string).",
});

const int64 = integerText.transform((v, ctx) => {
  const n = BigInt(v);
  if (n < INT64_MIN || n > INT64_MAX) {
    ctx.addIssue({ code: "custom", message: "Must fit in a signed 64-bit integer." });
    return z.NEVER;
  }
  return int64ToJson(n);
});

const uint64 = integerText.transform((v, ctx) => {
  const n = BigInt(v);
  if (n < 0n || n > UINT64_MAX) {
    ctx.addIssue({ code: "custom", message: "Must fit in an unsigned 64-bit integer." });
    return z.NEVER;
  }
  return n;
});

const uint32 = integerText.transform((v, ctx) => {
  const n = Number(v);
  if (n < 0 || n > 0xffffffff) {
    ctx.addIssue({ code: "custom", message: "Must fit in an unsigned 32-bit integer." });
    return z.NEVER;
  }
  return n;
});

const double = z.union(
  [z.number(), z.enum(["NaN", "Infinity", "-Infinity"]), z.string().regex(/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/).transform(Number)],
  { error: 'Must be a number (or "NaN", "Infinity", "-Infinity").' },
).transform((v) => (typeof v === "number" ? doubleToJson(v) : v));

const SEVERITY_NAMES: Record<string, number> = Object.fromEntries(
  ["UNSPECIFIED", ...["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"].flatMap((name) => [name, `${name}2`, `${name}3`, `${name}4`])].map(
    (name, i) => [`SEVERITY_NUMBER_${name}`, i],
  ),
);

const SEVERITY_NUMBER_MESSAGE = "Must be a SeverityNumber: an integer from 0 to 24, or a name such as SEVERITY_NUMBER_ERROR.";

const severityNumber = z.union([z.number(), z.string()], { error: SEVERITY_NUMBER_MESSAGE }).transform((v, ctx) => {
  const number = typeof v === "number" ? v : (SEVERITY_NAMES[v] ?? (/^-?\d{1,10}$/.test(v) ? Number(v) : NaN));
  if (!Number.isInteger(number) || number < -(2 ** 31) || number >= 2 ** 31) {
    ctx.addIssue({ code: "custom", message: SEVERITY_NUMBER_MESSAGE });
    return z.NEVER;
  }
  return number;
});

// Standard or URL-safe base64, padding optional (protobuf's JSON parsers accept both).
const bytes = z
  .string({ error: "Must be a base64 string." })
  .refine((s) => /^[A-Za-z0-9+/_-]*={0,2}$/.test(s) && s.replace(/=+$/, "").length % 4 !== 1, "Must be base64.")
  .transform((s) => Buffer.from(s, "base64").toString("base64"));

const optionalString = z.string({ error: "Must be a string." }).nullish().transform((s) => s ?? "");

function hexIdSchema(length: 8 | 16) {
  return z
    .string({ error: "Must be a hex string." })
    .nullish()
    .transform((s) => (s ? hexId(s, length) : null));
}

const ANY_VALUE_FIELDS = ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"] as const;

const anyValue: z.ZodType<OtlpValue | undefined> = z.lazy(() =>
  message({
    stringValue: z.string({ error: "Must be a string." }).nullish(),
    boolValue: z.boolean({ error: "Must be true or false." }).nullish(),
    intValue: int64.nullish(),
    doubleValue: double.nullish(),
    arrayValue: message({ values: z.array(anyValue, { error: "Must be an array." }).nullish() }).nullish(),
    kvlistValue: message({ values: keyValues }).nullish(),
    bytesValue: bytes.nullish(),
  }).transform((v) => {
    // A oneof: the first field set (a well-formed value sets one).
    for (const field of ANY_VALUE_FIELDS) {
      const item = v[field];
      if (item === undefined || item === null) continue;
      if (field === "arrayValue") return (v.arrayValue!.values ?? []).map((x) => x ?? null);
      if (field === "kvlistValue") return v.kvlistValue!.values.attributes;
      return item as OtlpValue;
    }
    return undefined;
  }),
);

const keyValues: z.ZodType<{ attributes: OtlpAttributes; count: number }, unknown> = z
  .array(message({ key: optionalString, value: anyValue.nullish() }), { error: "Must be an array of {key, value} objects." })
  .nullish()
  .transform((list) => {
    const attributes: OtlpAttributes = {};
    for (const { key, value } of list ?? []) setKey(attributes, key, value ?? null);
    return { attributes, count: list?.length ?? 0 };
  });

export const otlpJsonLogRecordSchema: z.ZodType<OtlpLogRecord, unknown> = message({
  timeUnixNano: uint64.nullish(),
  observedTimeUnixNano: uint64.nullish(),
  severityNumber: severityNumber.nullish(),
  severityText: optionalString,
  body: anyValue.nullish(),
  attributes: keyValues,
  droppedAttributesCount: uint32.nullish(),
  flags: uint32.nullish(),
  traceId: hexIdSchema(16),
  spanId: hexIdSchema(8),
  eventName: optionalString,
}).transform(
  (r): OtlpLogRecord => ({
    timeUnixNano: r.timeUnixNano ?? 0n,
    observedTimeUnixNano: r.observedTimeUnixNano ?? 0n,
    severityNumber: r.severityNumber ?? 0,
    severityText: r.severityText,
    body: r.body ?? undefined,
    attributes: r.attributes.attributes,
    attributeCount: r.attributes.count,
    droppedAttributesCount: r.droppedAttributesCount ?? 0,
    flags: r.flags ?? 0,
    traceId: r.traceId,
    spanId: r.spanId,
    eventName: r.eventName,
  }),
);

/** The records of a scope, each read on its own (otlpJsonLogRecordSchema) so that one bad record is reported alone. */
export const otlpJsonLogRecordsSchema = z.array(z.unknown(), { error: "Must be an array of log records." });

export const otlpJsonLogsRequestSchema = message({
  resourceLogs: z
    .array(
      message({
        resource: message({ attributes: keyValues })
          .nullish()
          .transform((r) => r ?? { attributes: { attributes: {}, count: 0 } })
          .transform((r) => ({ attributes: r.attributes.attributes })),
        scopeLogs: z
          .array(
            message({
              scope: message({ name: optionalString, version: optionalString, attributes: keyValues })
                .nullish()
                .transform((s) => ({ name: s?.name ?? "", version: s?.version ?? "", attributes: s?.attributes.attributes ?? {} })),
              logRecords: otlpJsonLogRecordsSchema.nullish().transform((r) => r ?? []),
            }),
            { error: "Must be an array." },
          )
          .nullish()
          .transform((s) => s ?? []),
      }),
      { error: "Must be an array." },
    )
    .nullish()
    .transform((r) => r ?? []),
});

// Named for the OpenAPI description (lib/openapi), which describes records with them.
export { anyValue as otlpJsonAnyValueSchema, keyValues as otlpJsonKeyValuesSchema };
