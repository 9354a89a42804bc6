import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "@/lib/http/errors";
import { parseInput, parsePathParams, queryObject } from "@/lib/http/input";
import { createProjectBodySchema, memberParamsSchema, projectParamsSchema } from "@/lib/projects/schemas";

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("nothing thrown");
}

describe("createProjectBodySchema", () => {
  it("trims the name", () => {
    expect(parseInput(createProjectBodySchema, { name: "  Shop  " })).toEqual({ name: "Shop" });
  });

  it("lists every problem, unknown fields at their own path", () => {
    const error = thrown(() => parseInput(createProjectBodySchema, { name: "", a: 1, b: 2 }));
    expect(error.status).toBe(400);
    expect(error.code).toBe("validation_failed");
    expect(error.errors).toEqual([
      { path: "name", message: "Give the project a name." },
      { path: "a", message: "Unknown field." },
      { path: "b", message: "Unknown field." },
    ]);
  });

  it("refuses control characters and names over 100 characters", () => {
    expect(thrown(() => parseInput(createProjectBodySchema, { name: "a\nb" })).errors![0]!.path).toBe("name");
    expect(thrown(() => parseInput(createProjectBodySchema, { name: "x".repeat(101) })).errors![0]!.message).toMatch(/100/);
    expect(parseInput(createProjectBodySchema, { name: "Ünïcode ✓ 项目" }).name).toBe("Ünïcode ✓ 项目");
  });

  it("reports a body that is not an object at the root label", () => {
    expect(thrown(() => parseInput(createProjectBodySchema, null)).errors![0]!.path).toBe("body");
    expect(thrown(() => parseInput(z.object({ a: z.string() }), 1, "query")).errors![0]!.path).toBe("query");
  });
});

describe("parsePathParams", () => {
  it("accepts database ids and answers 404 for anything else", () => {
    expect(parsePathParams(projectParamsSchema, { id: "cm1abc_DEF-2" })).toEqual({ id: "cm1abc_DEF-2" });
    expect(parsePathParams(memberParamsSchema, { id: "a", userId: "b" })).toEqual({ id: "a", userId: "b" });
    for (const id of ["", "a b", "x".repeat(101), "../etc", "a%00"]) {
      const error = thrown(() => parsePathParams(projectParamsSchema, { id }, "No such project."));
      expect([error.status, error.code, error.message]).toEqual([404, "not_found", "No such project."]);
    }
  });
});

describe("queryObject", () => {
  it("reads each name once and refuses a name given twice (400), naming it", () => {
    expect(queryObject(new Request("http://x/p?a=1&b=2&c="))).toEqual({ a: "1", b: "2", c: "" });
    const error = thrown(() => queryObject(new Request("http://x/p?a=1&b=2&a=3")));
    expect([error.status, error.code, error.errors]).toEqual([400, "validation_failed", [{ path: "a", message: "Give a at most once." }]]);
  });

  it("reads `tag` as a list, given once or more", () => {
    expect(queryObject(new Request("http://x/p?tag=region:eu&a=1"))).toEqual({ tag: ["region:eu"], a: "1" });
    expect(queryObject(new Request("http://x/p?tag=region:eu&tag=os:Linux"))).toEqual({ tag: ["region:eu", "os:Linux"] });
  });
});
