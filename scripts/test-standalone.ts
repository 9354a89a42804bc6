/**
 * npm run test:standalone: the container image's steps, tested without a
 * container engine (needs a build: `npm run build`, or NEXT_DIST_DIR=… and
 * `next build`; and the machine's PostgreSQL at PGHOST/PGPORT/PGUSER).
 *
 *   1. the Dockerfile's runner stage performed on the build: its COPY steps
 *      into a temporary folder outside the checkout, its CMD (`node
 *      server.js`) started there with its ENV plus what `docker run -e` would
 *      give, and nothing else of this shell's environment;
 *   2. the tools stage's CMD (`npm run db:migrate`) on a new database, and
 *      the operator CLI making a project;
 *   3. checks: the HEALTHCHECK command, readiness, ingestion (single, batch,
 *      a wrong key), static assets, sign-in by email link through an SMTP
 *      sink (request, mail, confirmation page, its button, a session), a
 *      signed-in page, and the retention cron route.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import pg from "pg";
import { freePort } from "@/tests/helpers/free-port";
import {
  assembleRunner,
  containerEnv,
  distDir,
  generatedSecret,
  readRunnerStage,
  readToolsCommand,
  runTool,
  scratchDatabase,
  spawnImageCommand,
  stopGroup,
} from "@/scripts/standalone-image";
import { startSmtpSink } from "@/tests/helpers/session";

let failures = 0;
async function check(name: string, fn: () => Promise<void> | void): Promise<void> {
  try {
    await fn();
    console.log(`ok    ${name}`);
  } catch (error) {
    failures++;
    console.log(`FAIL  ${name}\n      ${(error as Error).message.split("\n").join("\n      ")}`);
  }
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A browser's cookie jar over fetch, without following redirects. */
class Browser {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async request(method: "GET" | "POST", path: string, form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      headers.origin = this.base; // a form POST from the page itself
    }
    const res = await fetch(new URL(path, this.base), { method, headers, body: form ? new URLSearchParams(form) : undefined, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      if (/max-age=0/i.test(line) || eq === pair!.length - 1) this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

async function waitFor(url: string, child: { exitCode: number | null }, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<number> {
  const stage = readRunnerStage();
  const app = assembleRunner(stage);
  console.log(`runner stage assembled from ${distDir()} in ${app}: ${stage.copies.map((c) => `${c.from} -> ${c.to}`).join(", ")}`);
  const db = await scratchDatabase("standalone");
  const smtp = await startSmtpSink();
  const logFile = `${app}.log`;
  const log = fs.openSync(logFile, "a");
  let server: ReturnType<typeof spawnImageCommand> | undefined;
  try {
    const port = await freePort();
    // localhost, not 127.0.0.1: Next.js rewrites a loopback IP in request URLs
    // to "localhost", so links built from AUTH_URL=http://127.0.0.1:… would not match it.
    const base = `http://localhost:${port}`;
    const runtime = {
      DATABASE_URL: db.url,
      TELLTALE_SECRET: generatedSecret(),
      AUTH_SECRET: generatedSecret(),
      AUTH_URL: base,
      EMAIL_SERVER: smtp.url,
      EMAIL_FROM: "Telltale <telltale@standalone.test>",
      CRON_SECRET: generatedSecret(),
      PORT: String(port),
    };

    const migrate = readToolsCommand();
    await check(`tools image: ${migrate.join(" ")} applies the migrations`, () => {
      const out = runTool(migrate, { DATABASE_URL: db.url, NODE_ENV: "production" });
      expect(/Applied \d+_/.test(out), `no "Applied" line in:\n${out}`);
    });

    const owner = "owner@standalone.test";
    let project = { id: "", apiKey: "" };
    await check("tools image: npm run telltale -- project create --json", () => {
      const out = runTool(["npm", "run", "--silent", "telltale", "--", "project", "create", "--name", "standalone smoke", "--owner", owner, "--json"], {
        DATABASE_URL: db.url,
        TELLTALE_SECRET: runtime.TELLTALE_SECRET,
        NODE_ENV: "production",
      });
      project = JSON.parse(out);
      expect(project.apiKey?.startsWith("tlt_"), "no API key");
    });

    const started = Date.now();
    server = spawnImageCommand(stage.cmd, app, containerEnv(stage, runtime), log);
    await waitFor(`${base}/api/health/live`, server, 60_000);
    console.log(`${stage.cmd.join(" ")} answered /api/health/live after ${Date.now() - started} ms`);

    await check("HEALTHCHECK command exits 0", () => {
      const r = spawnSync(stage.healthcheck![0] === "node" ? process.execPath : stage.healthcheck![0]!, stage.healthcheck!.slice(1), {
        cwd: app,
        env: containerEnv(stage, runtime) as NodeJS.ProcessEnv,
        timeout: 5000,
      });
      expect(r.status === 0, `exit ${r.status}`);
    });

    await check("GET /api/health/ready: 200 (database reached)", async () => {
      const res = await fetch(`${base}/api/health/ready`);
      expect(res.status === 200, `status ${res.status}: ${await res.text()}`);
    });

    await check("POST /api/events: 201, and the row is stored", async () => {
      const res = await fetch(`${base}/api/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ level: "error", message: "Payment failed for order 1234", projectId: project.id, context: { orderId: 1234 } }),
      });
      const body = (await res.json()) as { id: string };
      expect(res.status === 201, `status ${res.status}: ${JSON.stringify(body)}`);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT message FROM events WHERE id = $1 AND project_id = $2", [body.id, project.id]);
        expect(rows[0]?.message === "Payment failed for order 1234", "the acknowledged event is not in the database");
      } finally {
        await client.end();
      }
    });

    await check("POST /api/events/batch: 201 with two ids", async () => {
      const event = { level: "info", message: "deploy 42 finished", projectId: project.id };
      const res = await fetch(`${base}/api/events/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ events: [event, event] }),
      });
      const body = (await res.json()) as { ids: string[] };
      expect(res.status === 201 && body.ids.length === 2, `status ${res.status}: ${JSON.stringify(body)}`);
    });

    await check("POST /api/events with a wrong key: 401 problem details", async () => {
      const res = await fetch(`${base}/api/events`, {
        method: "POST",
        headers: { authorization: `Bearer tlt_${"x".repeat(38)}`, "content-type": "application/json" },
        body: JSON.stringify({ level: "info", message: "x", projectId: project.id }),
      });
      expect(res.status === 401 && res.headers.get("content-type")?.startsWith("application/problem+json"), `status ${res.status}`);
    });

    const browser = new Browser(base);
    await check("GET /signin and its static assets (the COPY of .next/static)", async () => {
      const res = await browser.request("GET", "/signin");
      const html = await res.text();
      expect(res.status === 200, `status ${res.status}`);
      const assets = [...new Set([...html.matchAll(/\/_next\/static\/[^"'\s)]+\.(?:js|css)/g)].map((m) => m[0]))];
      expect(assets.length > 0, "no /_next/static asset in the page");
      for (const asset of assets) {
        const a = await fetch(`${base}${asset}`);
        expect(a.status === 200, `${asset}: ${a.status}`);
        await a.arrayBuffer();
      }
    });

    await check("sign-in: link mailed, confirmation page, its button, a session", async () => {
      const csrf = (await (await browser.request("GET", "/api/auth/csrf")).json()) as { csrfToken: string };
      const requested = await browser.request("POST", "/api/auth/signin/nodemailer", { email: owner, csrfToken: csrf.csrfToken, callbackUrl: `${base}/projects` });
      expect(requested.status === 302, `sign-in request: ${requested.status}`);
      // The owner also gets alert mails (the smoke event opened a new issue).
      const mail = await smtp.mailTo(owner, 15_000, (m) => m.text.includes("/signin/confirm"));
      const link = /https?:\/\/[^\s"<>]+\/signin\/confirm\?[^\s"<>]+/.exec(mail.text)?.[0];
      expect(link?.startsWith(`${base}/signin/confirm?`), `no confirmation link to ${base} in the mail:\n${mail.text.slice(0, 3000)}`);
      const page = await browser.request("GET", link!);
      const html = await page.text();
      expect(page.status === 200, `confirmation page: ${page.status}`);
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
      expect(action, "no form on the confirmation page");
      expect(!browser.has("authjs.session-token"), "a session before the button was pressed");
      const confirmed = await browser.request("POST", action!, {});
      expect(confirmed.status === 302 || confirmed.status === 303, `confirmation: ${confirmed.status}`);
      expect(browser.has("authjs.session-token"), "no session cookie after the button");
      const session = (await (await browser.request("GET", "/api/auth/session")).json()) as { user?: { email?: string } };
      expect(session.user?.email === owner, `session: ${JSON.stringify(session)}`);
      const projects = await browser.request("GET", "/projects");
      expect(projects.status === 200 && (await projects.text()).includes("standalone smoke"), `projects page: ${projects.status}`);
    });

    await check("POST /api/cron/retention: 401 without the secret, 200 with it", async () => {
      const refused = await fetch(`${base}/api/cron/retention`, { method: "POST" });
      expect(refused.status === 401, `without: ${refused.status}`);
      const res = await fetch(`${base}/api/cron/retention`, { method: "POST", headers: { authorization: `Bearer ${runtime.CRON_SECRET}` } });
      const body = (await res.json()) as { complete?: boolean; deleted?: { events: number } };
      expect(res.status === 200 && body.complete === true && body.deleted?.events === 0, `with: ${res.status} ${JSON.stringify(body)}`);
    });

    await check("SIGTERM stops the server", async () => {
      const exit = new Promise<number | null>((resolve) => server!.once("exit", (code) => resolve(code)));
      await stopGroup(server!, 10_000);
      await exit.catch(() => null);
      expect(server!.exitCode !== null || server!.signalCode !== null, "still running");
    });
  } finally {
    if (server) await stopGroup(server, 2_000);
    fs.closeSync(log);
    if (failures > 0) console.log(`--- server log (last 4,000 characters) ---\n${fs.readFileSync(logFile, "utf8").slice(-4000)}`);
    await smtp.close();
    await db.drop().catch((e) => console.error(`could not drop the database: ${(e as Error).message}`));
    fs.rmSync(app, { recursive: true, force: true });
    fs.rmSync(logFile, { force: true });
  }
  console.log(failures === 0 ? "\nstandalone: all checks passed" : `\nstandalone: ${failures} check(s) failed`);
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
