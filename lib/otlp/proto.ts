import protobuf from "protobufjs/light";

/**
 * The OTLP logs messages Telltale reads and answers, as protobufjs
 * reflection definitions, written from opentelemetry-proto's
 * `collector/logs/v1/logs_service.proto`, `logs/v1/logs.proto`,
 * `common/v1/common.proto` and `resource/v1/resource.proto` (field names in
 * lowerCamelCase, numbers and types as there). Fields a log receiver has no
 * use for (`entity_refs`, the profiling-only `*_strindex`) are left out:
 * the decoder skips them as unknown fields, as protobuf requires.
 *
 * Definitions in TypeScript rather than a `.proto` file read at start-up:
 * nothing to trace into Next.js's standalone output, no file system access,
 * no `.proto` parser in the bundle (`protobufjs/light`), and the compiler
 * checks this object. Each message's decoder is generated once, on first use.
 *
 * Each message is declared in edition 2023 rather than proto3: the wire
 * format is the same, but fields get explicit presence, so a decoded message
 * has own properties for exactly the fields that were on the wire. AnyValue's
 * `oneof value` is therefore left undeclared and read by presence: protobufjs's
 * oneof setter deletes the six other fields on every value it decodes, which
 * made it the costliest step of decoding a request.
 */
const definitions: protobuf.INamespace = {
  nested: {
    otlp: {
      nested: {
        // collector/logs/v1/logs_service.proto
        ExportLogsServiceRequest: {
          edition: "2023",
          fields: { resourceLogs: { rule: "repeated", type: "ResourceLogs", id: 1 } },
        },
        ExportLogsServiceResponse: {
          edition: "2023",
          fields: { partialSuccess: { type: "ExportLogsPartialSuccess", id: 1 } },
        },
        ExportLogsPartialSuccess: {
          edition: "2023",
          fields: {
            rejectedLogRecords: { type: "int64", id: 1 },
            errorMessage: { type: "string", id: 2 },
          },
        },
        // logs/v1/logs.proto
        ResourceLogs: {
          edition: "2023",
          fields: {
            resource: { type: "Resource", id: 1 },
            scopeLogs: { rule: "repeated", type: "ScopeLogs", id: 2 },
            schemaUrl: { type: "string", id: 3 },
          },
        },
        ScopeLogs: {
          edition: "2023",
          fields: {
            scope: { type: "InstrumentationScope", id: 1 },
            logRecords: { rule: "repeated", type: "LogRecord", id: 2 },
            schemaUrl: { type: "string", id: 3 },
          },
        },
        LogRecord: {
          edition: "2023",
          fields: {
            timeUnixNano: { type: "fixed64", id: 1 },
            observedTimeUnixNano: { type: "fixed64", id: 11 },
            // The SeverityNumber enum, read as its number (proto3 enums are open).
            severityNumber: { type: "int32", id: 2 },
            severityText: { type: "string", id: 3 },
            body: { type: "AnyValue", id: 5 },
            attributes: { rule: "repeated", type: "KeyValue", id: 6 },
            droppedAttributesCount: { type: "uint32", id: 7 },
            flags: { type: "fixed32", id: 8 },
            traceId: { type: "bytes", id: 9 },
            spanId: { type: "bytes", id: 10 },
            eventName: { type: "string", id: 12 },
          },
        },
        // resource/v1/resource.proto
        Resource: {
          edition: "2023",
          fields: {
            attributes: { rule: "repeated", type: "KeyValue", id: 1 },
            droppedAttributesCount: { type: "uint32", id: 2 },
          },
        },
        // common/v1/common.proto
        InstrumentationScope: {
          edition: "2023",
          fields: {
            name: { type: "string", id: 1 },
            version: { type: "string", id: 2 },
            attributes: { rule: "repeated", type: "KeyValue", id: 3 },
            droppedAttributesCount: { type: "uint32", id: 4 },
          },
        },
        AnyValue: {
          edition: "2023",
          // oneof value: see the note on presence above.
          fields: {
            stringValue: { type: "string", id: 1 },
            boolValue: { type: "bool", id: 2 },
            intValue: { type: "int64", id: 3 },
            doubleValue: { type: "double", id: 4 },
            arrayValue: { type: "ArrayValue", id: 5 },
            kvlistValue: { type: "KeyValueList", id: 6 },
            bytesValue: { type: "bytes", id: 7 },
          },
        },
        ArrayValue: {
          edition: "2023",
          fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } },
        },
        KeyValueList: {
          edition: "2023",
          fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } },
        },
        KeyValue: {
          edition: "2023",
          fields: {
            key: { type: "string", id: 1 },
            value: { type: "AnyValue", id: 2 },
          },
        },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(definitions);

export const ExportLogsServiceRequest = root.lookupType("otlp.ExportLogsServiceRequest");
export const ExportLogsServiceResponse = root.lookupType("otlp.ExportLogsServiceResponse");
export const LogRecordType = root.lookupType("otlp.LogRecord");

/** A 64-bit integer as protobufjs decodes it (a `long` Long, or a number when long.js is absent). */
export type ProtoLong = number | { low: number; high: number; unsigned: boolean };

// Decoded messages as protobufjs builds them: a field on the wire is an own
// property; an absent one reads the prototype's default (0, "", null, []).
export type ProtoAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: ProtoLong;
  doubleValue?: number;
  arrayValue?: { values: ProtoAnyValue[] } | null;
  kvlistValue?: { values: ProtoKeyValue[] } | null;
  bytesValue?: Uint8Array;
};
export type ProtoKeyValue = { key: string; value?: ProtoAnyValue | null };
export type ProtoLogRecord = {
  timeUnixNano: ProtoLong;
  observedTimeUnixNano: ProtoLong;
  severityNumber: number;
  severityText: string;
  body?: ProtoAnyValue | null;
  attributes: ProtoKeyValue[];
  droppedAttributesCount: number;
  flags: number;
  traceId: Uint8Array;
  spanId: Uint8Array;
  eventName: string;
};
export type ProtoScope = { name: string; version: string; attributes: ProtoKeyValue[]; droppedAttributesCount: number };
export type ProtoExportLogsServiceRequest = {
  resourceLogs: Array<{
    resource?: { attributes: ProtoKeyValue[]; droppedAttributesCount: number } | null;
    scopeLogs: Array<{ scope?: ProtoScope | null; logRecords: ProtoLogRecord[]; schemaUrl: string }>;
    schemaUrl: string;
  }>;
};
