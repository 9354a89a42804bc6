/**
 * The OpenAPI 3.1 description of the API (GET /api/openapi.json), generated
 * from the routes' zod schemas with zod's own JSON Schema generator
 * (`z.toJSONSchema`, draft 2020-12: the dialect OpenAPI 3.1 uses), so nothing
 * in it is written by hand but the prose.
 */
import { z } from "zod";
import { SESSION_COOKIE_NAMES } from "@/lib/auth/cookies";
import { PROBLEM_CONTENT_TYPE } from "@/lib/edge/problem";
import { itemSchemas, namedRequestSchemas, namedResponseSchemas, operations, type Answer, type Caller, type Content, type HeaderName, type Operation } from "@/lib/openapi/operations";
import packageJson from "@/package.json";

type JsonSchema = Record<string, unknown>;
type Io = "input" | "output";

const SCHEMA_REF = "#/components/schemas/";

const SECURITY: Record<Caller, Record<string, string[]>[]> = {
  apiKey: [{ apiKey: [] }],
  session: [{ session: [] }],
  // Or the envelope header's dsn (the body), which OpenAPI cannot name.
  sentryKey: [{ sentryKey: [] }, { sentryAuth: [] }, {}],
  public: [],
};

const STATUS_TEXT: Record<number, string> = {
  400: "The request is malformed: problems lists every field at fault.",
  401: "No valid credentials (missing_api_key, invalid_api_key, unauthenticated, api_key_not_accepted).",
  403: "Not allowed: a member's request for an owner's action, a cross-site request, or a key of another project (project_mismatch).",
  404: "No such resource, or not visible to the caller.",
  409: "Conflicts with the current state (e.g. the last owner, a limit reached).",
  413: "The body is over the limit (compressed or decoded).",
  415: "Content-Type or Content-Encoding not accepted.",
  429: "Too many requests: retry after Retry-After seconds.",
  500: "A server fault; the requestId is also in the server log.",
  503: "The database is unreachable: retry after Retry-After seconds; nothing was stored.",
};

const HEADERS: Record<HeaderName, Record<string, JsonSchema>> = {
  RequestId: { "X-Request-Id": { description: "This request's id, also in the server log.", schema: { type: "string" } } },
  RateLimit: Object.fromEntries(
    ["Limit", "Remaining", "Reset", "Policy"].map((part) => [`RateLimit-${part}`, { description: `The key's rate limit (IETF draft RateLimit-${part}).`, schema: { type: "string" } }]),
  ),
  RetryAfter: { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } } },
  IdempotentReplayed: {
    "Idempotent-Replayed": { description: "true when this is the first answer to an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
  },
  SentryRateLimits: { "X-Sentry-Rate-Limits": { description: "Sentry's rate-limit header, read by the SDKs.", schema: { type: "string" } } },
  Allow: { Allow: { description: "The methods the path serves.", schema: { type: "string" } } },
  WwwAuthenticate: { "WWW-Authenticate": { description: "Bearer challenge.", schema: { type: "string" } } },
  SummaryHeaders: Object.fromEntries(
    [
      ["X-Summary-Source", "builtin, or model:<name>"],
      ["X-Summary-Fallback", "Why the model did not answer, when it did not"],
      ["X-Summary-Events", "Events in the window"],
      ["X-Summary-Examined", "Events examined in detail"],
      ["X-Summary-Cache", "hit or miss"],
    ].map(([name, description]) => [name, { description, schema: { type: "string" } }]),
  ),
};

/**
 * Named schemas as components, in one pass per direction: requests as the
 * route reads them (`io: "input"`: what a client may send), answers as the
 * server writes them.
 */
function componentSchemas(named: Record<string, z.ZodType>, io: Io): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    uri: (id) => SCHEMA_REF + id,
    override: ({ zodSchema, jsonSchema }) => {
      const item = itemSchemas.get(zodSchema);
      if (item) jsonSchema.$ref = SCHEMA_REF + item;
    },
  });
  // zod pulls a recursive part nobody named (the OTLP attribute values) into "__shared": name it instead.
  if ("__shared" in schemas) throw new Error(`OpenAPI: name the recursive schemas of ${JSON.stringify(Object.keys(schemas.__shared!.$defs ?? {}))} in lib/openapi/operations.ts.`);
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, clean(schema as JsonSchema)]));
}

/** Drops the per-schema `$schema` and `$id`: the document's dialect is OpenAPI 3.1's, and ids would change how refs resolve. */
function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** A schema used once (a path or query parameter), inline. */
function inline(schema: z.ZodType, io: Io): JsonSchema {
  return clean(z.toJSONSchema(schema, { io }) as JsonSchema);
}

/** The object schema under refinements and transforms (a query schema's `.transform`), for its fields. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  let current: z.ZodType = schema;
  while (!(current instanceof z.ZodObject)) {
    if (current instanceof z.ZodPipe) current = current.in as z.ZodType;
    else throw new Error("OpenAPI: a path or query schema must be an object (or a transform of one).");
  }
  return current.shape as Record<string, z.ZodType>;
}

function parameters(op: Operation): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [where, schema] of [["path", op.params], ["query", op.query]] as const) {
    if (!schema) continue;
    for (const [name, field] of Object.entries(objectShape(schema))) {
      const optional = field.safeParse(undefined).success;
      const { description, ...schema } = inline(field, "input");
      list.push({ name, in: where, required: where === "path" || !optional, ...(description ? { description } : {}), schema });
    }
  }
  for (const [name, { schema, description }] of Object.entries(op.headers ?? {})) {
    list.push({ name, in: "header", required: false, description, schema: inline(schema, "input") });
  }
  return list;
}

function contentOf(content: Record<string, Content>, named: Record<string, z.ZodType>): JsonSchema {
  const ids = new Map(Object.entries(named).map(([id, schema]) => [schema, id]));
  return Object.fromEntries(
    Object.entries(content).map(([type, value]) => {
      if (Array.isArray(value)) return [type, { schema: { oneOf: value.map((one) => ({ $ref: SCHEMA_REF + nameOf(one, ids, type) })) } }];
      if ("raw" in value) {
        const schema = value.raw === "binary" ? { type: "string", contentMediaType: type === "*/*" ? "application/octet-stream" : type } : { type: "string" };
        return [type, { schema: { ...schema, description: value.description } }];
      }
      return [type, { schema: { $ref: SCHEMA_REF + nameOf(value, ids, type) } }];
    }),
  );
}

function nameOf(schema: z.ZodType, ids: Map<z.ZodType, string>, type: string): string {
  const id = ids.get(schema);
  if (!id) throw new Error(`OpenAPI: give the schema of a ${type} body or answer a name in lib/openapi/operations.ts.`);
  return id;
}

function headersOf(names: HeaderName[]): JsonSchema {
  return Object.fromEntries(names.flatMap((name) => Object.keys(HEADERS[name]).map((header) => [header, { $ref: `#/components/headers/${header}` }])));
}

function answer(a: Answer): JsonSchema {
  return {
    description: a.description,
    headers: headersOf(["RequestId", ...(a.headers ?? [])]),
    ...(a.content ? { content: contentOf(a.content, namedResponseSchemas) } : {}),
  };
}

function operation(op: Operation): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, a] of Object.entries(op.answers)) responses[status] = answer(a);
  for (const status of [...new Set(op.problems)].sort()) responses[status] = { $ref: `#/components/responses/${problemResponseName(op.caller, status)}` };
  const params = parameters(op);
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: SECURITY[op.caller],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body ? { requestBody: { required: true, ...(op.body.description ? { description: op.body.description } : {}), content: contentOf(op.body.content, namedRequestSchemas) } } : {}),
    responses,
  };
}

/** The Sentry routes' problems carry X-Sentry-Rate-Limits on 429; the ingest routes their RateLimit-* headers. */
function problemResponseName(caller: Caller, status: number): string {
  if (status === 429 && caller === "sentryKey") return "SentryProblem429";
  if (caller === "apiKey" && (status === 429 || status === 401)) return `IngestProblem${status}`;
  return `Problem${status}`;
}

function problemResponses(): Record<string, JsonSchema> {
  const content = { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `${SCHEMA_REF}Problem` } } };
  const out: Record<string, JsonSchema> = {};
  for (const op of operations) {
    for (const status of op.problems) {
      const name = problemResponseName(op.caller, status);
      const extra: HeaderName[] = status === 429 || status === 503 ? ["RetryAfter"] : [];
      if (name.startsWith("Ingest")) extra.push(status === 401 ? "WwwAuthenticate" : "RateLimit");
      if (name.startsWith("Sentry")) extra.push("SentryRateLimits");
      out[name] = { description: STATUS_TEXT[status] ?? `HTTP ${status}`, headers: headersOf(["RequestId", ...extra]), content };
    }
  }
  return out;
}

function buildDocument(): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operation(op);
  const requestSchemas = componentSchemas(namedRequestSchemas, "input");
  const responseSchemas = componentSchemas(namedResponseSchemas, "output");
  for (const id of Object.keys(requestSchemas)) if (id in responseSchemas) throw new Error(`OpenAPI: ${id} names a request and an answer schema.`);
  return {
    openapi: "3.1.0",
    info: {
      title: "Telltale API",
      version: packageJson.version,
      description:
        "Event ingestion (native, OpenTelemetry logs, Sentry SDKs) and the management API of a Telltale server. Every error is RFC 9457 problem details (application/problem+json) with a stable code; a method a path does not serve is 405 with Allow.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/", description: "This server" }],
    tags: [...new Set(operations.map((op) => op.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...requestSchemas, ...responseSchemas },
      responses: problemResponses(),
      headers: Object.assign({}, ...Object.values(HEADERS)),
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "tlt_<38 base62 characters>", description: "The project's API key: Authorization: Bearer tlt_... (servers only)." },
        session: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE_NAMES[1],
          description: `The dashboard's sign-in session (${SESSION_COOKIE_NAMES.join(" over https, ")} over http), from the email link. State changes must come from the same origin.`,
        },
        sentryKey: { type: "apiKey", in: "query", name: "sentry_key", description: "The public key of the project's DSN, as Sentry SDKs send it." },
        sentryAuth: { type: "apiKey", in: "header", name: "X-Sentry-Auth", description: "Sentry sentry_key=<public key>, ... (the SDKs' header form)." },
      },
    },
  };
}

let cached: JsonSchema | undefined;

/** The document; built once per process (it depends on the code only). */
export function openApiDocument(): JsonSchema {
  return (cached ??= buildDocument());
}
