import { expect, test } from "@playwright/test";
import { screenshot, signInNewUser } from "./support/session";

test("pages carry the favicon", async ({ page, request }) => {
  await page.goto("/signin");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const icon = await request.get(href!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("an unknown address shows the styled 404 page", async ({ page }, testInfo) => {
  // Signed out: an address outside the sign-in gate (it has a file extension).
  const missing = await page.goto("/no-such-page.txt");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your projects" })).toBeVisible();
  await screenshot(page, testInfo, "desktop-404");

  // Signed in: any unknown page.
  await signInNewUser(page, "lost");
  const unknown = await page.goto("/no/such/page");
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.getByRole("link", { name: "Go to your projects" }).click();
  await expect(page).toHaveURL(/\/projects$/);
});

test("the production server sends its security headers, and the page's scripts run under the nonce policy", async ({ page, request, baseURL }) => {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const response = await page.goto("/signin");
  const headers = response!.headers();
  const csp = headers["content-security-policy"]!;
  const nonce = /script-src[^;]*'nonce-([A-Za-z0-9+/=_-]+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'(?![^;]*'nonce-)/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBeTruthy();
  expect(headers["strict-transport-security"]).toBeUndefined(); // plain http here
  // Each page gets a fresh nonce, and the scripts Next.js inlined carry it (the form works).
  const again = (await request.get("/signin")).headers()["content-security-policy"]!;
  expect(again).not.toBe(csp);
  await page.getByLabel(/email/i).fill("headers@example.test");
  expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);

  // Behind a TLS-terminating proxy: HSTS.
  const viaHttps = await request.get("/signin", { headers: { "x-forwarded-proto": "https" } });
  expect(viaHttps.headers()["strict-transport-security"]).toMatch(/max-age=\d+/);
  // API answers carry nosniff too.
  const api = await request.get("/api/health/live");
  expect(api.headers()["x-content-type-options"]).toBe("nosniff");

  // TRACE and CONNECT get a 405 problem, never a 500.
  const { port, hostname } = new URL(baseURL!);
  for (const method of ["TRACE", "CONNECT", "PROPFIND"]) {
    const answer = await rawRequest(hostname, Number(port), `${method} ${method === "CONNECT" ? "example.com:443" : "/api/events"} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    expect(answer, method).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
  }
});

async function rawRequest(host: string, port: number, text: string): Promise<string> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host === "localhost" ? "127.0.0.1" : host, () => socket.write(text));
    let data = "";
    socket.on("data", (chunk) => (data += chunk.toString()));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer")));
  });
}

test("the OpenAPI description is served to anyone at /api/openapi.json, past the page gate and the API's 404", async ({ request }) => {
  const answer = await request.get("/api/openapi.json", { maxRedirects: 0 });
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-type"]).toBe("application/json");
  const document = await answer.json();
  expect(document.openapi).toMatch(/^3\.1\./);
  expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/events", "/v1/logs", "/api/{projectNumber}/envelope/", "/api/projects/{id}/events"]));
  // Its neighbours still answer as before: an unknown API path is a 404 problem, a wrong method a 405.
  expect((await request.get("/api/openapi.yaml")).status()).toBe(404);
  const post = await request.post("/api/openapi.json", { data: {} });
  expect(post.status()).toBe(405);
  expect(post.headers()["allow"]).toBe("GET");
});
