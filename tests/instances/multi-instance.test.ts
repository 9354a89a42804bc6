/**
 * Three production servers (`npm start`, each `next start` on a port of its
 * own) behind a round-robin client, sharing the run's database and the
 * machine's Redis under a key prefix of this run's own: every limit holds
 * across them as one (per-key ingest, failed authentications per address,
 * sign-in per address and per IP, invitations per inviter, summaries per
 * user), a rotated key is refused by all three at once, and a summary one
 * instance wrote is served from the shared cache by the others.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createProject } from "@/lib/project-setup/create-project";
import { startFakeOpenAI, truthfulAnswerTo, type FakeOpenAI } from "@/tests/helpers/fake-openai";
import { freePort } from "@/tests/helpers/free-port";
import { deleteKeys, rawRedis, redisAvailable, testKeyPrefix, TEST_REDIS_URL } from "@/tests/helpers/redis";
import { createUserWithSession, startSmtpSink, uniqueEmail } from "@/tests/helpers/session";

const ROOT = path.resolve(import.meta.dirname, "../..");
const available = await redisAvailable();

/** Requests per second per key; the burst allowance adds as many once per 10 s. */
const INGEST_LIMIT = 10;
const AUTH_FAILURES_PER_MINUTE = 5;
const SUMMARIES_PER_MINUTE = 3;
const SIGNIN_PER_EMAIL = 3;
const SIGNIN_PER_IP = 4;
const INVITATIONS_PER_HOUR = 4;

type Instance = { base: string; child: ChildProcess };


/** `npm start` as an operator runs it (ops/start.ts: checks, then `next start`), in a process group of its own. */
async function startInstance(env: NodeJS.ProcessEnv): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "ops/start.ts"], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"], detached: true });
  const base = `http://127.0.0.1:${port}`;
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      expect((await fetch(`${base}/api/health/live`)).status).toBe(200);
    },
    { timeout: 90_000, interval: 200 },
  );
  return { base, child };
}

function stopInstance({ child }: Instance): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      resolve();
    }
  });
}

describe.skipIf(!available)("three `npm start` instances sharing one database and Redis", () => {
  const prefix = testKeyPrefix("instances");
  let instances: Instance[] = [];
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  // The summary cache keeps model answers (the digest costs nothing to write again): a model that answers truthfully.
  let model: FakeOpenAI;
  let next = 0;
  /** The load balancer: each call goes to the next instance. */
  const pick = () => instances[next++ % instances.length]!;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    model = await startFakeOpenAI({ kind: "answer", answer: (request) => truthfulAnswerTo(request, "Payments are failing.") });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      TELLTALE_LOG: "silent",
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      INGEST_RATE_LIMIT: String(INGEST_LIMIT),
      AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
      AI_RATE_LIMIT_PER_MINUTE: String(SUMMARIES_PER_MINUTE),
      AI_MODEL: "fake-local",
      OPENAI_BASE_URL: model.baseURL,
      SIGNIN_RATE_LIMIT_PER_EMAIL: String(SIGNIN_PER_EMAIL),
      SIGNIN_RATE_LIMIT_PER_IP: String(SIGNIN_PER_IP),
      INVITATIONS_PER_INVITER_PER_HOUR: String(INVITATIONS_PER_HOUR),
      // The test client is every "client address": X-Forwarded-For names them.
      TRUST_PROXY_HOPS: "1",
      SIGNUP: "open",
      EMAIL_SERVER: smtp.url,
      AUTH_URL: "http://localhost:3000",
      // Longer than the test: a key an instance drops was dropped on the announcement.
      KEY_CACHE_TTL_MS: "600000",
      DATABASE_POOL_SIZE: "4",
      ALERTS_CRON_ONLY: "true",
    };
    instances = await Promise.all([0, 1, 2].map(() => startInstance(env)));
    // Each connected to Redis (before that, an instance counts in memory).
    for (const { base } of instances) {
      await vi.waitFor(
        async () => expect(await fetch(`${base}/api/health/ready`).then((r) => r.json())).toEqual({ status: "ok", details: { redis: { status: "ok" } } }),
        { timeout: 30_000, interval: 100 },
      );
    }
  });

  afterAll(async () => {
    await Promise.all(instances.map(stopInstance));
    await smtp?.close();
    await model?.close();
    if (available) await deleteKeys(prefix);
  });

  // Each request from an address of its own (X-Forwarded-For, one trusted
  // hop) unless a test names one: refused keys count against their sender's
  // address (AUTH_FAILURES_PER_MINUTE), and this client sends many.
  const anyAddress = () => `10.${1 + Math.floor(Math.random() * 70)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  const ingest = (base: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "x-forwarded-for": anyAddress(), ...headers },
      body: JSON.stringify(body),
    });

  async function ownedProject(label: string) {
    const owner = await createUserWithSession(uniqueEmail(label));
    const project = await createProject(owner.user.id, `${label}-${randomUUID()}`);
    return { owner, project };
  }

  it("the per-key ingest limit holds across the three within 10%", async () => {
    const { project } = await ownedProject("instances-rate");
    // The limit is decided before the body is read (key, limit, type, size,
    // body: the SPEC's order), so requests whose event is incomplete measure
    // the limiter alone, not the database's pace: 400 passed the limit, 429
    // did not.
    const incomplete = { level: "info", projectId: project.id };
    // Each instance looks the key up once first (401 would mean the cache is cold, not limited).
    for (const { base } of instances) expect((await ingest(base, project.apiKey, incomplete)).status).toBe(400);

    // Six clients, two per instance, for 10 s (ten of the limiter's 1 s
    // windows, one of its 10 s burst windows): far more than three separate
    // budgets would let through, so any instance counting alone shows.
    const statuses: number[] = [];
    const started = performance.now();
    const until = started + 10_000;
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const { base } = instances[i % instances.length]!;
        while (performance.now() < until) {
          statuses.push((await ingest(base, project.apiKey, incomplete)).status);
          await new Promise((r) => setTimeout(r, 20));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);
    const passed = statuses.filter((s) => s === 400).length + instances.length;

    // What one shared budget admits over that time: the rate in each 1 s
    // window the requests touched, plus the burst allowance once per 10 s.
    const windows = Math.ceil(seconds);
    const bursts = Math.ceil(seconds / 10);
    const budget = INGEST_LIMIT * windows + INGEST_LIMIT * bursts;
    console.info(`multi-instance ingest limit: ${passed} of ${statuses.length + instances.length} passed in ${seconds.toFixed(1)} s; one shared budget allows ${budget}, three separate ones ${3 * budget}`);
    // The load offered was enough that separate budgets could not hide: over three times the limit.
    expect(statuses.length / seconds).toBeGreaterThan(3 * INGEST_LIMIT * 1.5);
    expect(passed).toBeLessThanOrEqual(Math.ceil(budget * 1.1));
    // And the shared budget is used, not refused early: every full window's share passed.
    expect(passed).toBeGreaterThanOrEqual(Math.floor((INGEST_LIMIT * Math.floor(seconds) + INGEST_LIMIT) * 0.9));
  });

  it("failed authentications are counted per address across the three", async () => {
    const ip = `10.79.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const forged = `tlt_${"A".repeat(38)}`;
    const answers: number[] = [];
    for (let i = 0; i < 3 * instances.length; i++) answers.push((await ingest(pick().base, forged, {}, { "x-forwarded-for": ip })).status);
    expect(answers).toEqual([...Array(AUTH_FAILURES_PER_MINUTE).fill(401), ...Array(3 * instances.length - AUTH_FAILURES_PER_MINUTE).fill(429)]);
    // Another address is not affected, on any instance.
    for (const { base } of instances) expect((await ingest(base, forged, {}, { "x-forwarded-for": `${ip}1` })).status).toBe(401);
  });

  it("a rotated key is refused by all three at once; the new key works on all three", async () => {
    const { owner, project } = await ownedProject("instances-rotate");
    const oldKey = project.apiKey;
    const event = (message: string) => ({ level: "info", message, projectId: project.id });
    // Every instance looks the key up and caches it.
    for (const { base } of instances) expect((await ingest(base, oldKey, event("before"))).status).toBe(201);
    const redis = rawRedis();
    try {
      await vi.waitFor(async () => expect(((await redis.pubsub("NUMSUB", `${prefix}keys`)) as [string, number])[1]).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    } finally {
      redis.disconnect();
    }

    const [rotator, ...others] = instances;
    const rotated = await fetch(`${rotator!.base}/api/projects/${project.id}/key`, { method: "POST", headers: { cookie: owner.cookie } });
    expect(rotated.status).toBe(200);
    const { apiKey: newKey } = (await rotated.json()) as { apiKey: string };

    // At once, on every instance, whatever its cache still says: the insert
    // itself checks the key. No event is stored with the old key after the
    // rotation answered.
    for (const { base } of instances) expect((await ingest(base, oldKey, event("after"))).status).toBe(401);
    // And the other instances dropped it from their caches on the announcement
    // (their cache would trust it for 10 minutes): an empty body is refused
    // for the key (401) before it is read (400).
    for (const { base } of others) {
      await vi.waitFor(async () => expect((await ingest(base, oldKey, {})).status).toBe(401), { timeout: 5000, interval: 10 });
    }
    for (const { base } of instances) expect((await ingest(base, newKey, event("new key"))).status).toBe(201);
  });

  it("the summary quota is global, and so is the summary cache", async () => {
    const { owner, project } = await ownedProject("instances-ai");
    expect((await ingest(pick().base, project.apiKey, { level: "error", message: "Payment failed", projectId: project.id })).status).toBe(201);
    const answers: string[] = [];
    for (let i = 0; i < 2 * instances.length; i++) {
      const res = await fetch(`${instances[i % instances.length]!.base}/api/ai/summarize?projectId=${project.id}`, { headers: { cookie: owner.cookie } });
      answers.push(res.status === 200 ? `200 ${res.headers.get("x-summary-cache")}` : `${res.status} ${((await res.json()) as { code: string }).code}`);
    }
    // One instance wrote it; the other two answered from the shared cache; then the user's three are spent everywhere.
    expect(answers).toEqual(["200 miss", "200 hit", "200 hit", "429 rate_limited", "429 rate_limited", "429 rate_limited"]);
  });

  it("invitations per inviter are counted across the three", async () => {
    const { owner, project } = await ownedProject("instances-invite");
    const answers: number[] = [];
    for (let i = 0; i < 2 * instances.length; i++) {
      const res = await fetch(`${pick().base}/api/projects/${project.id}/invitations`, {
        method: "POST",
        headers: { cookie: owner.cookie, "content-type": "application/json" },
        body: JSON.stringify({ email: uniqueEmail("instances-invitee"), role: "member" }),
      });
      answers.push(res.status);
    }
    expect(answers).toEqual([...Array(INVITATIONS_PER_HOUR).fill(201), ...Array(2 * instances.length - INVITATIONS_PER_HOUR).fill(429)]);
  });

  describe("sign-in limits are global", () => {
    async function requestLink(base: string, email: string, ip: string): Promise<string> {
      const csrf = await fetch(`${base}/api/auth/csrf`, { headers: { "x-forwarded-for": ip } });
      const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const res = await fetch(`${base}/api/auth/signin/nodemailer`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
        body: new URLSearchParams({ email, csrfToken, callbackUrl: "/projects" }),
      });
      expect(res.status).toBe(302);
      return res.headers.get("location")!.includes("error=RateLimited") ? "limited" : "sent";
    }

    it("per address: from a new IP each time, round-robin; the mails sent are the ones allowed", async () => {
      const email = uniqueEmail("instances-signin");
      const answers: string[] = [];
      for (let i = 0; i < 2 * instances.length; i++) answers.push(await requestLink(pick().base, email, `10.77.${i}.${Math.floor(Math.random() * 250)}`));
      expect(answers).toEqual([...Array(SIGNIN_PER_EMAIL).fill("sent"), ...Array(2 * instances.length - SIGNIN_PER_EMAIL).fill("limited")]);
      // Mails go out after the answer: wait for the allowed ones, then none more.
      await vi.waitFor(() => expect(smtp.mails.filter((m) => m.to.includes(email)).length).toBeGreaterThanOrEqual(SIGNIN_PER_EMAIL), { timeout: 10_000 });
      expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(SIGNIN_PER_EMAIL);
    });

    it("per client IP: many addresses from one IP, round-robin", async () => {
      const ip = `10.78.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      const answers: string[] = [];
      for (let i = 0; i < 2 * instances.length; i++) answers.push(await requestLink(pick().base, uniqueEmail("instances-spray"), ip));
      expect(answers).toEqual([...Array(SIGNIN_PER_IP).fill("sent"), ...Array(2 * instances.length - SIGNIN_PER_IP).fill("limited")]);
    });
  });
});
