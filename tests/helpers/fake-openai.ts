import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake server answers the next chat completion. */
export type FakeMode =
  | { kind: "ok"; text: string }
  | { kind: "status"; status: number; body?: string; headers?: Record<string, string> }
  | { kind: "malformed" }
  | { kind: "hang" };

export type ReceivedRequest = {
  path: string;
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content: string | { type: string; text?: string }[] }[];
    [key: string]: unknown;
  };
};

export type FakeOpenAI = {
  /** e.g. http://127.0.0.1:43123/v1, for OPENAI_BASE_URL. */
  baseURL: string;
  requests: ReceivedRequest[];
  setMode(mode: FakeMode): void;
  close(): Promise<void>;
};

/**
 * A local OpenAI-compatible server (POST /v1/chat/completions only) on a
 * random port of 127.0.0.1, recording what it receives.
 */
export async function startFakeOpenAI(initial: FakeMode = { kind: "ok", text: "All quiet." }): Promise<FakeOpenAI> {
  let mode = initial;
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
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
    requests.push({ path: req.url, authorization: req.headers.authorization, body });

    switch (mode.kind) {
      case "ok":
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? "fake",
            choices: [{ index: 0, message: { role: "assistant", content: mode.text }, finish_reason: "stop" }],
            usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          }),
        );
        return;
      case "status":
        res
          .writeHead(mode.status, { "content-type": "application/json", ...(mode.headers ?? {}) })
          .end(mode.body ?? JSON.stringify({ error: { message: "upstream exploded", type: "server_error" } }));
        return;
      case "malformed":
        res.writeHead(200, { "content-type": "application/json" }).end('{"id": "chatcmpl-x", "choices": [ {"mess');
        return;
      case "hang":
        // Never answers; closed when the client gives up or the server stops.
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        return;
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setMode(next) {
      mode = next;
    },
    async close() {
      for (const res of hanging) res.destroy();
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
