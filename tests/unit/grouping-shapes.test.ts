import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NOT_IN_APP_RULES } from "@/lib/grouping/in-app";
import { GROUPING_RULES } from "@/lib/grouping/key";
import { MESSAGE_SHAPES, type ShapeStage } from "@/lib/grouping/message-shapes";
import { messageTemplate } from "@/lib/grouping/template";

const STAGES: ShapeStage[] = ["message", "quoted", "token", "embedded", "piece", "segment", "joined"];
const docs = fs.readFileSync(path.resolve(__dirname, "../../docs/grouping.md"), "utf8");

/** The rows of the docs' table whose first cells hold these names in backticks, in the order they appear. */
function documentedNames(names: string[]): string[] {
  return docs
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) => /`([a-z0-9.-]+)`/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && names.includes(name));
}

describe("the message shapes table", () => {
  it("has unique kebab-case names, in stage order", () => {
    const names = MESSAGE_SHAPES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    const stages = MESSAGE_SHAPES.map((s) => STAGES.indexOf(s.stage));
    expect(stages).toEqual([...stages].sort((a, b) => a - b));
  });

  it.each(MESSAGE_SHAPES.map((s) => [s.name, s.example, s.template]))("%s: its example templates as it says", (_name, example, template) => {
    expect(messageTemplate(example)).toBe(template);
    expect(messageTemplate(template)).toBe(template);
  });

  it("masks something in every example but those of the shapes that keep their text", () => {
    const keeping = MESSAGE_SHAPES.filter((s) => s.example === s.template).map((s) => s.name);
    expect(keeping).toEqual(["vocabulary"]);
  });

  it("is the table docs/grouping.md shows, in the same order, with the same examples", () => {
    const names = MESSAGE_SHAPES.map((s) => s.name);
    expect(documentedNames(names)).toEqual(names);
    for (const shape of MESSAGE_SHAPES) {
      const row = docs.split("\n").find((line) => line.includes(`| \`${shape.name}\` |`))!;
      expect(row, shape.name).toContain(`\`${shape.example}\``);
      expect(row, shape.name).toContain(`\`${shape.template}\``);
    }
  });
});

describe("docs/grouping.md", () => {
  it("lists the grouping rules in order with their versions", () => {
    expect(documentedNames(GROUPING_RULES.map((r) => r.name))).toEqual(GROUPING_RULES.map((r) => r.name));
    for (const rule of GROUPING_RULES) expect(docs).toContain(`| \`${rule.name}\` | ${rule.version} |`);
  });

  it("lists every in-app rule in order", () => {
    const names = NOT_IN_APP_RULES.map((r) => r.name);
    expect(documentedNames(names)).toEqual(names);
  });
});
