/**
 * Turns corpus entries into bytes: `{{repeat:n:text}}` runs are expanded,
 * then `{{name}}` placeholders are filled with this run's ids, keys and
 * cookies (harness/chaos/corpus-types.ts lists them).
 */
import { PLACEHOLDERS, type ChaosBody, type PlaceholderName } from "@/harness/chaos/corpus-types";

export type PlaceholderValues = Record<PlaceholderName, string>;

const REPEAT = /\{\{repeat:(\d+):([^}]*)\}\}/g;
const PLACEHOLDER = /\{\{([a-zA-Z]+)\}\}/g;

export function expandText(text: string, values: PlaceholderValues): string {
  return text
    .replace(REPEAT, (_, n: string, encoded: string) => decodeURIComponent(encoded).repeat(Number(n)))
    .replace(PLACEHOLDER, (whole, name: string) => {
      if (!(name in PLACEHOLDERS)) throw new Error(`unknown placeholder ${whole}`);
      return values[name as PlaceholderName];
    });
}

/** Placeholders inside raw bytes (ASCII names; the bytes around them are left as they are). */
function expandBytes(bytes: Buffer, values: PlaceholderValues): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (;;) {
    const start = bytes.indexOf("{{", from);
    const end = start < 0 ? -1 : bytes.indexOf("}}", start);
    if (start < 0 || end < 0) break;
    const name = bytes.subarray(start + 2, end).toString("latin1");
    if (!/^[a-zA-Z]+$/.test(name) || !(name in PLACEHOLDERS)) {
      from = start + 2;
      continue;
    }
    parts.push(bytes.subarray(from, start), Buffer.from(values[name as PlaceholderName], "utf8"));
    from = end + 2;
  }
  parts.push(bytes.subarray(from));
  return Buffer.concat(parts);
}

export function materializeBody(body: ChaosBody, values: PlaceholderValues): Buffer {
  if (typeof body === "string") return Buffer.from(expandText(body, values), "utf8");
  if ("base64" in body) return expandBytes(Buffer.from(body.base64, "base64"), values);
  if ("fill" in body) {
    const before = Buffer.from(expandText(body.fill.before, values), "utf8");
    const after = Buffer.from(expandText(body.fill.after, values), "utf8");
    const padding = body.fill.totalBytes - before.length - after.length;
    if (padding < 0) throw new Error("fill body: before + after exceed totalBytes");
    return Buffer.concat([before, Buffer.alloc(padding, body.fill.char), after]);
  }
  const { before, item, separator, after, times } = body.repeat;
  const one = expandText(item, values);
  return Buffer.from(expandText(before, values) + Array.from({ length: times }, () => one).join(separator) + expandText(after, values), "utf8");
}
