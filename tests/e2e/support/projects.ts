import { expect, type APIRequestContext, type Page } from "@playwright/test";

export type CreatedProject = { id: string; name: string; apiKey: string };

/**
 * Creates a project as the signed-in user of `page`, through the management
 * API (the session cookie travels with page.request). The UI's form has its
 * own test (projects.spec.ts).
 */
export async function createProject(page: Page, name: string): Promise<CreatedProject> {
  const response = await page.request.post("/api/projects", { data: { name } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as CreatedProject;
}

export type EventInput = {
  level: "error" | "warn" | "info";
  message: string;
  context?: Record<string, unknown>;
  /** When it happened on the client (ISO); within the last 14 days it becomes the event's time. */
  timestamp?: string;
  fingerprint?: string[];
  release?: string;
  environment?: string;
  tags?: Record<string, string>;
  user?: { id?: string; email?: string; username?: string; ip_address?: string };
};

/** Sends events one by one as a client application would (curl-like, with the project's key). */
export async function sendEvents(request: APIRequestContext, project: CreatedProject, events: EventInput[]): Promise<string[]> {
  const ids: string[] = [];
  for (const event of events) {
    const response = await request.post("/api/events", {
      headers: { Authorization: `Bearer ${project.apiKey}` },
      data: { ...event, projectId: project.id },
    });
    expect(response.status(), await response.text()).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  return ids;
}

/** Many events in one request (POST /api/events/batch, up to 1,000). */
export async function sendBatch(request: APIRequestContext, project: CreatedProject, events: EventInput[]): Promise<void> {
  const response = await request.post("/api/events/batch", {
    headers: { Authorization: `Bearer ${project.apiKey}` },
    data: { events: events.map((event) => ({ ...event, projectId: project.id })) },
  });
  expect(response.status(), await response.text()).toBe(201);
}

/** An ISO time `ms` ago. */
export function ago(ms: number): string {
  return new Date(Date.now() - ms).toISOString();
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
