import type { ReactNode } from "react";

// Strings (with an optional trailing colon: an object key), literals, numbers.
const TOKEN = /("(?:\\u[0-9a-fA-F]{4}|\\[^u]|[^\\"])*"(?:\s*:)?|\btrue\b|\bfalse\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

function tokenClass(token: string): string {
  if (token.startsWith('"')) {
    return token.trimEnd().endsWith(":") ? "text-indigo-700 dark:text-indigo-300" : "text-emerald-700 dark:text-emerald-300";
  }
  if (token === "true" || token === "false") return "text-amber-700 dark:text-amber-300";
  if (token === "null") return "text-zinc-500";
  return "text-sky-700 dark:text-sky-300";
}

function highlight(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const index = match.index ?? 0;
    if (index > last) out.push(text.slice(last, index));
    out.push(
      <span key={index} className={tokenClass(match[0])}>
        {match[0]}
      </span>,
    );
    last = index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Pretty-printed, coloured JSON. Rendered on the server: no script needed. */
export function JsonViewer({ value, label }: { value: unknown; label?: string }) {
  const text = JSON.stringify(value, null, 2) ?? "null";
  return (
    <pre
      aria-label={label}
      className="max-h-96 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-xs leading-relaxed text-zinc-800 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-200"
    >
      <code>{highlight(text)}</code>
    </pre>
  );
}
