/**
 * The shape of harness/chaos/corpus.json, shared by the generator
 * (harness/chaos/corpus.ts) and the runner (harness/chaos/run.ts).
 *
 * Placeholders `{{name}}` in paths, header values and bodies are filled at
 * run time (see PLACEHOLDERS), so the committed corpus holds no secret and no
 * id of any real database.
 */

/** A request body: text (sent as UTF-8), raw bytes, or a generated one (big bodies stay small in the file). */
export type ChaosBody =
  | string
  | { base64: string }
  /** `before` + `char` repeated + `after`, exactly `totalBytes` bytes once placeholders are filled. */
  | { fill: { before: string; char: string; after: string; totalBytes: number } }
  /** `before` + `times` copies of `item` joined by `separator` + `after`. */
  | { repeat: { before: string; item: string; separator: string; after: string; times: number } };

/**
 * The credential the runner adds: `key` = `Authorization: Bearer <the main
 * project's key>`, `otherKey` = another team's project key, `session` = the
 * cookie of the main project's owner, `otherSession` = the cookie of a user
 * who is not a member of it. An entry that sets `authorization` (or
 * `cookie`) itself gets nothing added for that header.
 */
export type ChaosAuth = "none" | "key" | "otherKey" | "session" | "otherSession";

export type CorpusEntry = {
  /** Unique, stable: failures are reported by name. */
  name: string;
  category: string;
  method: string;
  path: string;
  /** Sent as given (an array sends the header once per value). */
  headers: Record<string, string | string[]>;
  body?: ChaosBody;
  auth: ChaosAuth;
  /**
   * - `http` (default): node:http with a Content-Length.
   * - `chunked`: node:http, the body in 16 KiB writes with Transfer-Encoding: chunked.
   * - `raw`: written to a TCP socket: request line, `headers` exactly as given
   *   (plus Host unless given, Connection: close, the credential), then the
   *   body framed by `framing`; or `bytes` as the whole request.
   */
  transport?: "http" | "chunked" | "raw";
  /** raw: `length` (a true Content-Length, the default), `chunked` (valid chunks), `none` (the entry's own headers frame the body, lies included). */
  framing?: "length" | "chunked" | "none";
  /** raw: the client half-closes after writing (it hangs up mid-request). */
  halfClose?: boolean;
  /** raw: the entire request, nothing added. */
  bytes?: ChaosBody;
  expect: ChaosExpectation;
  /** Why this expectation, where it is not obvious. */
  why?: string;
};

export type ChaosExpectation = {
  /**
   * Acceptable statuses. 0 means "the connection was closed without an
   * answer", acceptable only where listed (a client that hung up, a CONNECT).
   */
  status: number[];
  /** Acceptable problem `code`s when the answer is an error. */
  code?: string[];
  /** Rows carrying this entry's `{{token}}` (events, projects, invitations) when the answer is 2xx; a refused request must store 0. Default 0. */
  stored?: number;
  /** false: not a problem-details route (Auth.js, pages); the other checks still apply. */
  problem?: false;
  /**
   * Node's HTTP parser may refuse the request before the app sees it (a bare
   * 400/431/417/505 with no body and no X-Request-Id); nothing the app can
   * answer with problem details.
   */
  transportRefusal?: true;
  /** For 2xx with stored rows: the stored event must equal what was sent (level, message, context). */
  exact?: true;
};

export type Corpus = { generatedBy: string; seed: number; entries: CorpusEntry[] };

/** Every placeholder the runner fills, with what it becomes. */
export const PLACEHOLDERS = {
  token: "a marker unique to this entry and run (lower-case letters and digits), carried by whatever the entry may store",
  run: "a marker unique to this run",
  projectId: "the main project (owner: the `session` user; key: `key`)",
  otherProjectId: "another team's project (owner: the `otherSession` user; key: `otherKey`)",
  scratchProjectId: "a project of the `session` user that cross-site requests aim at (delete, rotate, invite, remove)",
  key: "the main project's API key",
  otherKey: "the other project's API key",
  revokedKey: "a rotated (revoked) key of a third project",
  eventId: "an event of the main project",
  issueId: "an issue of the main project",
  userId: "the `session` user",
  memberUserId: "a member (not owner) of the main and scratch projects",
  scratchInvitationId: "a pending invitation of the scratch project",
  inviteToken: "a pending invitation's token to the other project for the `session` user's address",
  sessionToken: "the `session` user's session token",
  expiredSessionToken: "an expired session token of the `session` user",
  origin: "the server's own origin, http://127.0.0.1:<port>",
  host: "127.0.0.1:<port>",
} as const;

export type PlaceholderName = keyof typeof PLACEHOLDERS;
