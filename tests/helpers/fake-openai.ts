import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake server answers the next chat completion. */
export type FakeMode =
  /** The assistant's content as given (plain text, or a JSON string). */
  | { kind: "ok"; text: string }
  /** A structured answer: what `answer` makes of the request, as the content's JSON. */
  | { kind: "answer"; answer: (request: ReceivedRequest) => unknown }
  | { kind: "status"; status: number; body?: string; headers?: Record<string, string> }
  | { kind: "malformed" }
  /** A 200 whose body is `bytes` long (a JSON string that never ends), sent in 64 KiB chunks as fast as the client reads. */
  | { kind: "huge"; bytes: number; contentLength?: boolean }
  /** Holds every request until release() (or `afterMs`), then answers as `then`. */
  | { kind: "slow"; then: FakeMode; afterMs?: number }
  | { kind: "hang" };

export type ReceivedRequest = {
  path: string;
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content: string | { type: string; text?: string }[] }[];
    response_format?: { type: string; json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean } };
    [key: string]: unknown;
  };
};

export type FakeOpenAI = {
  /** e.g. http://127.0.0.1:43123/v1, for OPENAI_BASE_URL. */
  baseURL: string;
  requests: ReceivedRequest[];
  /** Bytes of "huge" answers the server got to write, and whether one was written whole. */
  huge: { written: number; completed: boolean }[];
  setMode(mode: FakeMode): void;
  /** Lets the requests held by a "slow" mode answer. */
  release(): void;
  /** Resolves when `n` requests have arrived in all. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * A local OpenAI-compatible server (POST /v1/chat/completions only) on a
 * random port of 127.0.0.1, recording what it receives. The AI SDK's
 * `openai.chat(model)` asks for structured output with `response_format:
 * {type: "json_schema", json_schema: {name, schema, strict}}` and reads the
 * JSON from the message's content, which is how this server answers.
 */
export async function startFakeOpenAI(initial: FakeMode = { kind: "ok", text: "All quiet." }): Promise<FakeOpenAI> {
  let mode = initial;
  const requests: ReceivedRequest[] = [];
  const huge: FakeOpenAI["huge"] = [];
  const open = new Set<ServerResponse>();
  let releaseHeld: (() => void)[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    open.add(res);
    res.on("close", () => open.delete(res));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    let body: ReceivedRequest["body"] = {};
    try {
      body = JSON.parse(raw) as ReceivedRequest["body"];
    } catch {
      // recorded as empty
    }
    const request: ReceivedRequest = { path: req.url, authorization: req.headers.authorization, body };
    requests.push(request);
    for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
    await answer(mode, request, res);
  }

  async function answer(current: FakeMode, request: ReceivedRequest, res: ServerResponse): Promise<void> {
    switch (current.kind) {
      case "ok":
        completion(res, request, current.text);
        return;
      case "answer": {
        completion(res, request, JSON.stringify(current.answer(request)));
        return;
      }
      case "status":
        res
          .writeHead(current.status, { "content-type": "application/json", ...(current.headers ?? {}) })
          .end(current.body ?? JSON.stringify({ error: { message: "upstream exploded", type: "server_error" } }));
        return;
      case "malformed":
        res.writeHead(200, { "content-type": "application/json" }).end('{"id": "chatcmpl-x", "choices": [ {"mess');
        return;
      case "huge":
        await writeHuge(res, current.bytes, current.contentLength ?? false);
        return;
      case "slow":
        await new Promise<void>((resolve) => {
          releaseHeld.push(resolve);
          if (current.afterMs !== undefined) setTimeout(resolve, current.afterMs);
        });
        if (!res.destroyed) await answer(current.then, request, res);
        return;
      case "hang":
        // Never answers; closed when the client gives up or the server stops.
        return;
    }
  }

  function completion(res: ServerResponse, request: ReceivedRequest, content: string) {
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: `chatcmpl-${requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: request.body.model ?? "fake",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
  }

  /** A body of `bytes`, written chunk by chunk while the client keeps reading (awaiting drain), until it hangs up. */
  async function writeHuge(res: ServerResponse, bytes: number, contentLength: boolean) {
    const record = { written: 0, completed: false };
    huge.push(record);
    res.writeHead(200, { "content-type": "application/json", ...(contentLength ? { "content-length": String(bytes) } : {}) });
    const head = '{"id":"chatcmpl-huge","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
    const chunk = Buffer.alloc(64 * 1024, "a");
    res.write(head);
    record.written = head.length;
    while (record.written < bytes && !res.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, bytes - record.written));
      record.written += piece.length;
      if (!res.write(piece)) await new Promise<void>((resolve) => (res.once("drain", resolve), res.once("close", resolve)));
    }
    if (!res.destroyed) {
      res.end();
      record.completed = true;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    huge,
    setMode(next) {
      mode = next;
    },
    release() {
      const held = releaseHeld;
      releaseHeld = [];
      for (const resolve of held) resolve();
    },
    waitForRequests(n) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push({ n, resolve }));
    },
    async close() {
      for (const resolve of releaseHeld) resolve();
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The text of every message the fake server received in one request, by role. */
export function messageText(request: ReceivedRequest, role: string): string {
  return (request.body.messages ?? [])
    .filter((m) => m.role === role)
    .map((m) => (typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("")))
    .join("\n");
}

/** A fenced issue line of a summary prompt (lib/ai/prompt.ts), as much of it as a fake answer needs. */
export type PromptIssueLine = { type: "issue"; rank: number; level: string; title: string; count: number; first: string; status?: string; instructionLike?: true };

/** The issue lines between `<events-TOKEN>` and `</events-TOKEN>` of a summary prompt's user message. */
export function promptIssueLines(user: string): PromptIssueLine[] {
  const open = /<events-([a-z]+)>\n/.exec(user);
  if (!open) return [];
  const close = user.indexOf(`\n</events-${open[1]}>`);
  return user
    .slice(open.index + open[0].length, close)
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string })
    .filter((line): line is PromptIssueLine => line.type === "issue");
}

/**
 * What a careful model answers (lib/ai/answer.ts's schema): the top error
 * that is not ignored (else the top issue) with its rank, count and first
 * event copied from its line, and words without numbers.
 */
export function truthfulAnswer(user: string, headline = "Payments are failing; look at the top error first.") {
  const issues = promptIssueLines(user);
  const top = issues.find((i) => i.level === "error" && i.status !== "ignored" && !i.instructionLike) ?? issues.find((i) => !i.instructionLike) ?? issues[0];
  return {
    headline,
    items: top ? [{ rank: top.rank, count: top.count, start: top.first, text: "It is the worst issue of the window and it is still going on." }] : [],
    notes: [],
    lookFirst: top ? "The top error, listed first." : "Nothing needs attention.",
  };
}

/** truthfulAnswer for the request the fake server received. */
export function truthfulAnswerTo(request: ReceivedRequest, headline?: string) {
  return truthfulAnswer(messageText(request, "user"), headline);
}
