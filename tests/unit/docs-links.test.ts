import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

/** Markdown files a reader of the repository sees: the README and docs/. */
function markdownFiles(): string[] {
  const files = ["README.md", "SECURITY.md"];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) files.push(rel);
    }
  };
  walk("docs");
  return files;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(root, file), "utf8").replace(/```[\s\S]*?```/g, "");
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(match[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Relative links of a file, outside code blocks: [text](target) and ![alt](target). */
function linksOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), "utf8").replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe("documentation links", () => {
  it("slugs headings as GitHub does", () => {
    expect(slug("Group commit: one statement at a time")).toBe("group-commit-one-statement-at-a-time");
    expect(slug("`POST /api/events`")).toBe("post-apievents");
  });

  it("every relative link in the README and docs/ reaches a file, and its anchor a heading there", () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const link of linksOf(file)) {
        const [target, anchor] = link.split("#") as [string, string | undefined];
        const resolved = target === "" ? file : path.normalize(path.join(path.dirname(file), target));
        if (path.relative(root, path.join(root, resolved)).startsWith("..")) {
          broken.push(`${file}: ${link} (outside the repository)`);
          continue;
        }
        if (!fs.existsSync(path.join(root, resolved))) {
          broken.push(`${file}: ${link} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
