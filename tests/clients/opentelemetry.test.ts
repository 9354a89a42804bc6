/**
 * OpenTelemetry clients as programs (tests/fixtures/clients/otel) exporting
 * to the production server's POST /v1/logs with the project's API key: the
 * JS logs SDK with the OTLP/HTTP JSON exporter and the protobuf one (gzip),
 * and pino through pino-opentelemetry-transport. Severity, resource
 * (service.name, service.version, deployment.environment) and exception
 * attributes are stored, and exception records are grouped by their stack.
 */
import { describe, expect, it } from "vitest";
import { byMessage, clientProject, FIXTURES, lastJsonLine, runNodeProgram, serverUrl, storedEvents, waitForEvents } from "@/tests/clients/helpers";

const OTEL = `${FIXTURES}/otel`;
const PRICE = "TypeError: Cannot read properties of undefined (reading 'price')";
const MAP = "TypeError: Cannot read properties of undefined (reading 'map')";

describe("the OpenTelemetry JS logs SDK 0.223.1", () => {
  it.each([
    ["@opentelemetry/exporter-logs-otlp-http (JSON)", "http"],
    ["@opentelemetry/exporter-logs-otlp-proto (protobuf, gzip)", "proto"],
  ])("%s: every export succeeds; levels, resource and attributes are stored; exceptions group by stack", async (_name, exporter) => {
    const project = await clientProject(`otel-${exporter}`);
    const run = await runNodeProgram(`${OTEL}/sdk-logs.ts`, { TELLTALE_URL: serverUrl(), TELLTALE_API_KEY: project.apiKey, OTEL_EXPORTER: exporter }, { cwd: OTEL });
    expect(run.code, run.stderr).toBe(0);
    // One export per record (SimpleLogRecordProcessor), each acknowledged after the commit.
    expect(lastJsonLine<{ results: { code: number }[] }>(run).results).toEqual(Array(5).fill({ code: 0 }));

    const events = await storedEvents(project.id);
    expect(events).toHaveLength(5);
    const placed = byMessage(events, "order placed");
    expect(placed).toMatchObject({
      level: "info",
      release: "2.4.1",
      environment: "staging",
      tags: { service: "checkout", scope: "checkout.payments", severity: "INFO" },
      user: { id: "u_7" },
      context: { attributes: { "order.id": "o_123" }, resource: { "service.name": "checkout" } },
    });
    expect(byMessage(events, "payment slow")).toMatchObject({ level: "warn", context: { attributes: { ms: 950 } } });

    const cart = events.filter((e) => e.message === PRICE);
    const rows = byMessage(events, MAP);
    expect(cart).toHaveLength(2);
    for (const event of [...cart, rows]) expect(event.level).toBe("error");
    expect(cart[0]!.context).toMatchObject({ body: "cart total failed", stacktrace: expect.stringMatching(/at cartTotal \(.*shop\.ts:\d+/) });
    expect(rows.context).toMatchObject({ body: "rendering failed", stacktrace: expect.stringMatching(/at renderRows \(.*shop\.ts:\d+/) });
    // Grouped by the stack: one shape of message, two bugs, two issues.
    expect(cart[1]!.issueId).toBe(cart[0]!.issueId);
    expect(rows.issueId).not.toBe(cart[0]!.issueId);
  });
});

describe("pino-opentelemetry-transport 4.0.2", () => {
  it("exports pino's records at exit; levels, resource and the err's stack are stored", async () => {
    const project = await clientProject("otel-pino");
    const run = await runNodeProgram(`${OTEL}/pino-otel.ts`, { TELLTALE_URL: serverUrl(), TELLTALE_API_KEY: project.apiKey }, { cwd: OTEL });
    expect(run.code, run.stderr).toBe(0);
    const events = await waitForEvents(project.id, 3);
    expect(events).toHaveLength(3);
    expect(byMessage(events, "job started")).toMatchObject({ level: "info", release: "2.4.1", environment: "production", tags: { service: "worker" } });
    expect(byMessage(events, "job slow")).toMatchObject({ level: "warn" });
    const failed = byMessage(events, "job failed");
    expect(failed.level).toBe("error");
    expect(failed.context.stacktrace).toMatch(/^Error: queue stalled\n\s+at drainQueue /);
  });
});
