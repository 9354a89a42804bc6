import { AppError } from "@/lib/http/errors";

/**
 * Who a Sentry SDK says it is: the public key of its DSN, sent one of four
 * ways (SPEC "Sentry SDK compatibility"):
 *
 *   ?sentry_key=<key>&sentry_version=7        @sentry/node, @sentry/browser
 *   X-Sentry-Auth: Sentry sentry_key=<key>, sentry_version=7, sentry_client=...
 *   Authorization: Sentry sentry_key=<key>, ...   (a few SDKs)
 *   {"dsn": "https://<key>@host/<n>"} as the envelope header   (tunnels)
 *
 * Only the key's text comes out; lib/keys looks it up (and throttles
 * failures). Which wins: the request's own credentials (header or query)
 * over the envelope's dsn, which is read only when the request has none.
 * Two request credentials that name different keys, or a dsn that names
 * another key than the request's, are a 401: the request does not say
 * who it is. A credential that is present but unreadable is a 401 too.
 */

export type SentryCredentials = {
  publicKey: string;
  source: "x-sentry-auth" | "authorization" | "query" | "dsn";
  /** `sentry_client`, e.g. "sentry.javascript.node/11.12.0", when sent. */
  client: string | null;
  /** The DSN's project number, when the key came from an envelope's dsn. */
  projectNumber: number | null;
};

/** Longest key text passed on: public keys are 32 characters; anything far longer is not one. */
const MAX_KEY_CHARS = 128;

function missing(detail: string): AppError {
  return new AppError(401, "missing_api_key", detail, { headers: { "WWW-Authenticate": 'Sentry realm="telltale"' } });
}

function mismatch(detail: string): AppError {
  return new AppError(401, "invalid_api_key", detail, { headers: { "WWW-Authenticate": 'Sentry realm="telltale", error="invalid_token"' } });
}

const NO_CREDENTIALS =
  "Send your DSN's public key: the sentry_key query parameter, an X-Sentry-Auth header (Sentry sentry_key=<publicKey>, sentry_version=7) or the envelope header's dsn. Copy the DSN from the Projects page.";

function checkedKey(value: string | undefined, where: string): string {
  const key = (value ?? "").trim().replace(/^"(.*)"$/, "$1");
  if (key === "") throw missing(`${where} has no sentry_key. ${NO_CREDENTIALS}`);
  if (key.length > MAX_KEY_CHARS || !/^[\x21-\x7e]+$/.test(key)) throw missing(`${where} has a sentry_key that cannot be a key.`);
  return key;
}

/** `Sentry sentry_key=..., sentry_version=7, ...` -> its pairs (the "Sentry " prefix optional). */
export function parseSentryAuthHeader(value: string): Map<string, string> {
  const pairs = new Map<string, string>();
  const body = value.trim().replace(/^sentry\s+/i, "");
  for (const part of body.split(",")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const name = part.slice(0, at).trim().toLowerCase();
    if (name && !pairs.has(name)) pairs.set(name, part.slice(at + 1).trim());
  }
  return pairs;
}

/**
 * The credentials the request itself carries (headers, query), or null when
 * it carries none; throws a 401 for one that is unreadable and for two that
 * disagree. An `Authorization` header of another scheme (Bearer) is not a
 * Sentry credential and is ignored here.
 */
export function sentryRequestCredentials(request: Request): SentryCredentials | null {
  const found: SentryCredentials[] = [];
  const xSentryAuth = request.headers.get("x-sentry-auth");
  if (xSentryAuth !== null && xSentryAuth.trim() !== "") {
    const pairs = parseSentryAuthHeader(xSentryAuth);
    found.push({ publicKey: checkedKey(pairs.get("sentry_key"), "X-Sentry-Auth"), source: "x-sentry-auth", client: pairs.get("sentry_client") ?? null, projectNumber: null });
  }
  const authorization = request.headers.get("authorization");
  if (authorization && /^sentry\s/i.test(authorization.trim())) {
    const pairs = parseSentryAuthHeader(authorization);
    found.push({ publicKey: checkedKey(pairs.get("sentry_key"), "Authorization"), source: "authorization", client: pairs.get("sentry_client") ?? null, projectNumber: null });
  }
  const query = queryOf(request.url);
  const keys = query.getAll("sentry_key");
  if (keys.length > 0) {
    const key = checkedKey(keys[0], "The sentry_key query parameter");
    if (keys.some((other) => other.trim() !== key)) throw mismatch("The query names several different sentry_key values.");
    found.push({ publicKey: key, source: "query", client: query.get("sentry_client"), projectNumber: null });
  }
  if (found.length === 0) return null;
  const [first, ...rest] = found;
  const other = rest.find((c) => c.publicKey !== first!.publicKey);
  if (other) throw mismatch(`The request names two different keys (${first!.source} and ${other.source}); send one.`);
  return first!;
}

function queryOf(url: string): URLSearchParams {
  const at = url.indexOf("?");
  return new URLSearchParams(at < 0 ? "" : url.slice(at + 1).replace(/#.*$/, ""));
}

/** A DSN `<scheme>://<publicKey>[:<secret>]@<host>[:<port>]/[<path>/]<projectNumber>` -> its key and project number; a 401 otherwise. */
export function credentialsFromDsn(dsn: string): SentryCredentials {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw missing("The envelope's dsn is not a URL.");
  }
  let username: string;
  try {
    username = decodeURIComponent(url.username);
  } catch {
    throw missing("The envelope's dsn has a malformed public key.");
  }
  const publicKey = checkedKey(username, "The envelope's dsn");
  const last = url.pathname.replace(/\/+$/, "").split("/").pop() ?? "";
  const projectNumber = /^\d{1,15}$/.test(last) ? Number(last) : null;
  if (projectNumber === null) throw missing("The envelope's dsn does not end with a project number.");
  return { publicKey, source: "dsn", client: null, projectNumber };
}

/**
 * The credentials of an envelope request: the request's own, else the
 * envelope header's dsn (pass `envelopeDsn` once the envelope is parsed;
 * for a store request pass nothing; `fromRequest` when the request's own
 * were read already). Throws a 401 when there are none, or when the dsn
 * names another key than the request.
 */
export function resolveSentryCredentials(request: Request, envelopeDsn?: string | null, fromRequest = sentryRequestCredentials(request)): SentryCredentials {
  const fromDsn = envelopeDsn ? credentialsFromDsn(envelopeDsn) : null;
  if (fromRequest && fromDsn && fromRequest.publicKey !== fromDsn.publicKey) {
    throw mismatch("The envelope's dsn names another key than the request's credentials.");
  }
  const credentials = fromRequest ?? fromDsn;
  if (!credentials) throw missing(NO_CREDENTIALS);
  return fromRequest && fromDsn ? { ...fromRequest, projectNumber: fromDsn.projectNumber } : credentials;
}
