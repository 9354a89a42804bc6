/**
 * `npm run dev` as a developer runs it, for tests: started in its own process
 * group with its own embedded database and build folder (inside the project,
 * as the defaults are), and signed in through the dev mail log.
 */
import { spawn, type ChildProcess } from "node:child_process";

// Tests and scripts run from the project root.
const ROOT = process.cwd();

export type Dev = { child: ChildProcess; output: string[]; origin: string };

export function startDev({ port, dataDir, distDir, env = {} }: { port: number; dataDir: string; distDir: string; env?: Record<string, string> }): Promise<Dev> {
  const output: string[] = [];
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts"], {
    cwd: ROOT,
    env: {
      ...withoutTestSettings(process.env),
      NODE_ENV: "development",
      PORT: String(port),
      TELLTALE_DATA_DIR: dataDir,
      NEXT_DIST_DIR: distDir,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const origin = `http://localhost:${port}`;
  return new Promise<Dev>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(...chunk.toString("utf8").split("\n"));
      if (output.some((line) => /Ready in/.test(line))) resolve({ child, output, origin });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`npm run dev exited (${code}):\n${output.slice(-40).join("\n")}`)));
  });
}

/** The test run's database and secrets are not the developer's: `npm run dev` makes its own. */
function withoutTestSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of ["DATABASE_URL", "DIRECT_URL", "TELLTALE_SECRET", "AUTH_SECRET", "TELLTALE_LOG", "DATABASE_QUERY_TIMEOUT_MS", "DATABASE_CONNECT_TIMEOUT_MS", "DATABASE_PREPARED_STATEMENTS", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID", "EMAIL_SERVER"]) delete copy[name];
  return copy;
}

export async function stopDev(d: Dev): Promise<void> {
  if (d.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => d.child.once("exit", () => resolve()));
  process.kill(-d.child.pid!, "SIGINT");
  await exited;
}

/** A request's Cookie header from `jar`, and what a response sets kept in it. */
function cookieJar(jar: Map<string, string>) {
  return {
    cookie: () => [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
    keep: (res: Response) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair!.indexOf("=");
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
    },
  };
}

/** Signs in as a developer does without a mail server: the link from the log, then the confirmation page's button. */
export async function signIn(d: Dev, email: string): Promise<string> {
  const { link, jar } = await requestSignInLink(d, email);
  const { cookie, keep } = cookieJar(jar);
  const action = new URL(`/api/auth/callback/nodemailer?${link.searchParams}`, d.origin);
  const confirmed = await fetch(action, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookie(), origin: d.origin, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
    body: "",
  });
  keep(confirmed);
  const session = jar.get("authjs.session-token");
  if (!session) throw new Error(`no session after the sign-in link (${confirmed.status})`);
  return session;
}

/** The sign-in form's request for `email`'s link, sent to `d.origin`; the link as the dev mail log shows it, and the request's cookies. */
export async function requestSignInLink(d: Dev, email: string): Promise<{ link: URL; jar: Map<string, string> }> {
  const jar = new Map<string, string>();
  const { cookie, keep } = cookieJar(jar);
  const csrf = await fetch(`${d.origin}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const sent = await fetch(`${d.origin}/api/auth/signin/nodemailer`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded", origin: d.origin },
    body: new URLSearchParams({ email, csrfToken, callbackUrl: "/projects" }),
  });
  keep(sent);
  const line = await waitForLine(d, new RegExp(`DEV SIGN-IN LINK .* for ${email.replace(/[.+]/g, "\\$&")}: (\\S+)`));
  return { link: new URL(line.match(/: (\S+)$/)![1]!), jar };
}

export async function waitForLine(d: Dev, pattern: RegExp): Promise<string> {
  for (;;) {
    const found = d.output.find((line) => pattern.test(line));
    if (found) return found;
    await new Promise<void>((resolve) => d.child.stdout!.once("data", () => resolve()));
  }
}

