/**
 * Sentry SDKs of two other languages, from Debian's packages (CI installs
 * them with apt; PyPI and RubyGems are out of reach here): sentry-ruby
 * (`ruby-sentry-ruby`, with `ruby`) and sentry-python (`python3-sentry-sdk`,
 * for the system /usr/bin/python3), each a program configured as
 * docs/sentry.md says, sending through a recording proxy so the test sees
 * what they put on the wire (X-Sentry-Auth, gzip bodies, the old /store/
 * endpoint). A machine without them skips with the reason.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { byMessage, clientProject, FIXTURES, lastJsonLine, runProgram, serverUrl, startProxy, userEnv, waitForEvents, storedEvents, type Proxy } from "@/tests/clients/helpers";

const SYSTEM_PYTHON = "/usr/bin/python3";
const hasRuby = spawnSync("ruby", ["-e", 'require "sentry-ruby"; print Sentry::VERSION'], { encoding: "utf8" });
const hasPython = spawnSync(SYSTEM_PYTHON, ["-c", "import sentry_sdk; print(sentry_sdk.VERSION, end='')"], { encoding: "utf8" });
const rubyVersion = hasRuby.status === 0 ? hasRuby.stdout : null;
const pythonVersion = hasPython.status === 0 ? hasPython.stdout : null;
// CI installs both (.ci/run): there a missing one fails instead of skipping.
const inCi = process.env.CI === "true";
const skipRuby = !rubyVersion && !inCi;
const skipPython = !pythonVersion && !inCi;
if (skipRuby) console.warn("Skipping sentry-ruby: `ruby` with sentry-ruby is not installed (apt-get install ruby ruby-sentry-ruby; CI installs them).");
if (skipPython) console.warn(`Skipping sentry-python: ${SYSTEM_PYTHON} cannot import sentry_sdk (apt-get install python3-sentry-sdk; CI installs it).`);

type Value = { type: string; value: string; stacktrace?: { frames: { function?: string; filename?: string; lineno?: number; in_app?: boolean; context_line?: string }[] } };

let proxy: Proxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** The project's DSN with the proxy's host instead of the server's. */
const throughProxy = (dsn: string, proxyUrl: string) => dsn.replace(new URL(serverUrl()).host, new URL(proxyUrl).host);

describe.skipIf(skipRuby)(`sentry-ruby ${rubyVersion ?? ""} (Debian)`, () => {
  it("sends X-Sentry-Auth and, past 30 KB, gzip bodies; stores the exception with its cause, the message, release, environment, tags, user and breadcrumbs", async () => {
    expect(rubyVersion, "ruby with sentry-ruby (CI installs ruby and ruby-sentry-ruby)").toBeTruthy();
    const project = await clientProject("sentry-ruby");
    proxy = await startProxy(serverUrl());
    const run = await runProgram("ruby", ["app.rb"], { cwd: `${FIXTURES}/ruby`, env: userEnv({ SENTRY_DSN: throughProxy(project.dsn, proxy.url) }) });
    expect(run.code, run.stderr).toBe(0);
    // No send failed (the SDK logs failures to stderr).
    expect(run.stderr).toBe("");
    const ids = lastJsonLine<{ exception: string; message: string; large: string }>(run);

    // On the wire: the envelope endpoint, the key in X-Sentry-Auth (not the query), gzip for the large event; all answered 200.
    expect(proxy.requests.length).toBe(3);
    for (const request of proxy.requests) {
      expect(request.url).toBe(`/api/${project.number}/envelope/`);
      expect(request.headers["x-sentry-auth"]).toMatch(new RegExp(`^Sentry .*sentry_key=${project.publicKey}`));
      expect(request.status).toBe(200);
    }
    expect(proxy.requests.map((r) => r.headers["content-encoding"] === "gzip")).toEqual([false, false, true]);

    const events = await waitForEvents(project.id, 3);
    expect(events).toHaveLength(3);
    const failure = byMessage(events, "InvoiceError: Invoice 9 has no total");
    expect(failure).toMatchObject({ level: "error", release: "billing@2.0.1", environment: "production", tags: { queue: "invoices" }, user: { id: "7", username: "grace" } });
    expect(failure.context.sentry.event_id).toBe(ids.exception);
    const chain = failure.context.exception.values as Value[];
    expect(chain.map((v) => v.type)).toEqual(["KeyError", "InvoiceError"]);
    const frames = chain.at(-1)!.stacktrace!.frames;
    const rendering = frames.find((f) => f.function === "render_invoice");
    expect(rendering).toMatchObject({ in_app: true, filename: "app.rb", lineno: expect.any(Number) });
    // The SDK read the source: the frame's line as it is in the file.
    expect(rendering!.context_line!.trim()).toBe(fs.readFileSync(`${FIXTURES}/ruby/app.rb`, "utf8").split("\n")[rendering!.lineno! - 1]!.trim());
    expect(failure.context.breadcrumbs.values).toEqual(expect.arrayContaining([expect.objectContaining({ category: "sql" })]));

    expect(byMessage(events, "Nightly export finished late")).toMatchObject({ level: "warn", context: { sentry: { level: "warning", event_id: ids.message } } });
    const large = byMessage(events, "ArgumentError: Export row 812 is malformed");
    expect(large.context.sentry.event_id).toBe(ids.large);
    expect(large.context.extra.rows).toHaveLength(900);
  });
});

describe.skipIf(skipPython)(`sentry-python ${pythonVersion ?? ""} (Debian)`, () => {
  it("posts events to /store/ gzipped with X-Sentry-Auth; stores the exception with its cause chain, the message, release, environment and tags", async () => {
    expect(pythonVersion, `${SYSTEM_PYTHON} with sentry_sdk (CI installs python3-sentry-sdk)`).toBeTruthy();
    const project = await clientProject("sentry-python");
    proxy = await startProxy(serverUrl());
    const run = await runProgram(SYSTEM_PYTHON, ["app.py"], { cwd: `${FIXTURES}/python`, env: userEnv({ SENTRY_DSN: throughProxy(project.dsn, proxy.url) }) });
    expect(run.code, run.stderr).toBe(0);
    const ids = lastJsonLine<{ exception: string; message: string }>(run);

    const events = proxy.requests.filter((r) => r.url.startsWith(`/api/${project.number}/store/`));
    expect(events).toHaveLength(2);
    for (const request of events) {
      expect(request.headers["x-sentry-auth"]).toMatch(new RegExp(`^Sentry .*sentry_key=${project.publicKey}`));
      expect(request.headers["content-encoding"]).toBe("gzip");
      expect(request.status).toBe(200);
    }
    // Whatever else it sent (sessions, in envelopes) was answered 200 too.
    expect(proxy.requests.every((r) => r.status === 200)).toBe(true);

    const stored = await waitForEvents(project.id, 2);
    const failure = byMessage(stored, "RuntimeError: Invoice 9 could not be charged");
    expect(failure).toMatchObject({ level: "error", release: "billing@2.0.1", environment: "production", tags: { queue: "invoices" } });
    expect(failure.context.sentry.event_id).toBe(ids.exception);
    const chain = failure.context.exception.values as Value[];
    expect(chain.map((v) => v.type)).toEqual(["ValueError", "RuntimeError"]);
    expect(chain[0]!.stacktrace!.frames.find((f) => f.function === "parse_amount")).toMatchObject({ in_app: true, context_line: expect.stringContaining("return int(text)") });
    expect(failure.context.breadcrumbs.values).toEqual(expect.arrayContaining([expect.objectContaining({ category: "sql" })]));
    expect(byMessage(stored, "Nightly export finished late")).toMatchObject({ level: "warn", context: { sentry: { event_id: ids.message } } });
    expect(await storedEvents(project.id)).toHaveLength(2);
  });
});
