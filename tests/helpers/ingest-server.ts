/**
 * A bare HTTP server around the real POST /api/events route handler, for the
 * crash test: it runs in its own process so the test can SIGKILL it mid-load.
 * Prints "listening <port>" when ready.
 */
import http from "node:http";
import { POST } from "@/app/api/events/route";

const server = http.createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: Buffer.concat(chunks),
  });
  const response = await POST(request, { params: Promise.resolve({}) });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${(server.address() as { port: number }).port}`);
});
