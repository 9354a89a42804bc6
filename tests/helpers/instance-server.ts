/**
 * One Telltale instance for the multi-instance test (tests/integration/
 * multi-instance.test.ts): the real route handlers of ingestion, key
 * rotation, summaries, sign-in (Auth.js) and readiness behind a bare HTTP
 * server, in a process of its own, with the same node guard `next start`
 * installs (so the client address is the socket's). Much faster to start
 * than a production build, and needs none. Configured by the environment;
 * prints "listening <port>" when ready.
 */
import http from "node:http";
import * as auth from "@/app/api/auth/[...nextauth]/route";
import * as summarize from "@/app/api/ai/summarize/route";
import * as batch from "@/app/api/events/batch/route";
import * as events from "@/app/api/events/route";
import * as ready from "@/app/api/health/ready/route";
import * as projectKey from "@/app/api/projects/[id]/key/route";
import { installHttpGuard } from "@/lib/http/node-guard";
import { closeRedis } from "@/lib/redis/connection";

type Handler = (request: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
type Route = { path: RegExp; module: Record<string, unknown>; params?: (match: RegExpExecArray) => Record<string, string> };

const routes: Route[] = [
  { path: /^\/api\/events$/, module: events },
  { path: /^\/api\/events\/batch$/, module: batch },
  { path: /^\/api\/projects\/([^/]+)\/key$/, module: projectKey, params: (m) => ({ id: decodeURIComponent(m[1]!) }) },
  { path: /^\/api\/ai\/summarize$/, module: summarize },
  { path: /^\/api\/auth\//, module: auth },
  { path: /^\/api\/health\/ready$/, module: ready },
];

async function handle(req: http.IncomingMessage): Promise<Response> {
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
  for (const route of routes) {
    const match = route.path.exec(url.pathname);
    const handler = match && (route.module[req.method ?? "GET"] as Handler | undefined);
    if (!match) continue;
    if (!handler) return new Response(null, { status: 405 });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(url, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined });
    return handler(request, { params: Promise.resolve(route.params?.(match) ?? {}) });
  }
  return new Response(null, { status: 404 });
}

installHttpGuard();
const server = http.createServer((req, res) => {
  handle(req).then(
    async (response) => {
      const headers: Record<string, string | string[]> = Object.fromEntries(response.headers);
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) headers["set-cookie"] = cookies;
      res.writeHead(response.status, headers);
      res.end(Buffer.from(await response.arrayBuffer()));
    },
    (error: unknown) => {
      console.error(error);
      res.writeHead(500).end();
    },
  );
});

server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as { port: number }).port}`));
process.on("SIGTERM", () => {
  server.close();
  void closeRedis().finally(() => process.exit(0));
});
