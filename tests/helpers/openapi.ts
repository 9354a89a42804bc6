import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { openApiDocument } from "@/lib/openapi/document";

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object>; responses: Record<string, { content?: Record<string, { schema: object }> }> };
};

/**
 * Strict Ajv (JSON Schema 2020-12, formats checked) over the document's
 * components, so that a `$ref` to #/components/schemas/X resolves as in the
 * document itself.
 */
export function openApiAjv(document: object = openApiDocument()) {
  const doc = document as Doc;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addKeyword("components"); // the container of the schemas, not a keyword of any of them
  ajv.addSchema({ $id: "openapi", components: { schemas: doc.components.schemas } });
  return { doc, ajv };
}

/**
 * Checks a real answer against the document (this code's, or one a server
 * served): the operation must list its
 * status, with the answer's content type, and the body must match that
 * content's schema. Returns the problems (empty when it matches).
 */
export function answerProblems(
  path: string,
  method: string,
  response: { status: number; contentType: string | null; body: unknown },
  document: object = openApiDocument(),
): string[] {
  const { doc, ajv } = openApiAjv(document);
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (!operation) return [`${method} ${path} is not in the document`];
  let answer = operation.responses[String(response.status)];
  if (!answer) return [`${method} ${path} does not list status ${response.status}`];
  if (answer.$ref) answer = doc.components.responses[answer.$ref.split("/").pop()!]!;
  const type = (response.contentType ?? "").split(";")[0]!.trim();
  const content = answer.content?.[type];
  if (!content) return [`${method} ${path} ${response.status} does not list content type ${type || "(none)"}`];
  const validateBody: ValidateFunction = ajv.compile({ $ref: `openapi#/components/schemas/${refName(content.schema)}` });
  return validateBody(response.body) ? [] : (validateBody.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

function refName(schema: object): string {
  const ref = (schema as { $ref?: string }).$ref;
  if (!ref) throw new Error("answers in the document are named schemas");
  return ref.split("/").pop()!;
}
