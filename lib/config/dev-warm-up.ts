/**
 * `npm run dev` compiles each route on its first request, which takes
 * seconds: an SDK's first event from a short script (a Python or Node.js
 * script that raises and exits) waited longer than the SDK's 2-second flush
 * at exit and was dropped. So once the server answers, the ingest routes are
 * compiled ahead by an OPTIONS request each: it loads the route without
 * authenticating (a refused key would count against the address's failed
 * authentications) and stores nothing.
 */
export const INGEST_ROUTES = ["/api/events", "/api/events/batch", "/api/1/envelope/", "/api/1/store/", "/v1/logs"] as const;

export type WarmUpOptions = {
  /** Give up after this long without the server answering (ms). */
  readyWithinMs?: number;
  /** Between attempts while the server is not answering yet (ms). */
  pollMs?: number;
  log?: (line: string) => void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
};

/** Waits for the server at `origin` to answer, then compiles the ingest routes one after another. Never throws; answers whether every route answered. */
export async function warmIngestRoutes(origin: string, options: WarmUpOptions = {}): Promise<boolean> {
  const { readyWithinMs = 300_000, pollMs = 500, log = () => {}, fetch: send = fetch, sleep = (ms) => new Promise((r) => setTimeout(r, ms)), now = Date.now } = options;
  const deadline = now() + readyWithinMs;
  while (!(await answers(send, `${origin}/api/health/live`, "GET"))) {
    if (now() >= deadline) return false;
    await sleep(pollMs);
  }
  for (const route of INGEST_ROUTES) {
    if (!(await answers(send, `${origin}${route}`, "OPTIONS"))) return false;
  }
  log(`Ingest routes compiled: SDKs and clients can send events to ${origin}`);
  return true;
}

async function answers(send: typeof fetch, url: string, method: string): Promise<boolean> {
  try {
    const response = await send(url, { method });
    await response.body?.cancel();
    return response.status < 500;
  } catch {
    return false;
  }
}
