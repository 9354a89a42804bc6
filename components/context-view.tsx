import type { ReactNode } from "react";
import { isStackKey } from "@/components/stack-lines";
import { StackTrace } from "@/components/stack-trace";

// The colours of the former JSON viewer: keys, strings, numbers, literals.
const KEY = "text-indigo-700 dark:text-indigo-300";
const STRING = "text-emerald-700 dark:text-emerald-300";
const NUMBER = "text-sky-700 dark:text-sky-300";
const BOOLEAN = "text-amber-700 dark:text-amber-300";
const NULL = "text-zinc-500";
const PUNCT = "text-zinc-400 dark:text-zinc-500";

/**
 * An event's context, laid out like pretty-printed JSON, except where JSON
 * would hurt: a string with line breaks shows as lines (not `\n`), and a
 * stack trace (a `stack` field at any depth, `error.stack` ...) shows one
 * frame per line. Rendered on the server: no script needed.
 */
export function ContextView({ value, label }: { value: unknown; label?: string }) {
  return (
    <div
      role="group"
      aria-label={label}
      className="max-h-[32rem] overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-3 font-mono text-xs leading-relaxed text-zinc-800 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-200"
    >
      <JsonNode value={value} last />
    </div>
  );
}

function Line({ children }: { children: ReactNode }) {
  return <div className="break-words whitespace-pre-wrap">{children}</div>;
}

function Punct({ children }: { children: ReactNode }) {
  return <span className={PUNCT}>{children}</span>;
}

function KeyLabel({ name }: { name?: string }) {
  if (name === undefined) return null;
  return (
    <>
      <span className={KEY}>{JSON.stringify(name)}</span>
      <Punct>: </Punct>
    </>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className={STRING}>{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className={NUMBER}>{String(value)}</span>;
  if (typeof value === "boolean") return <span className={BOOLEAN}>{String(value)}</span>;
  return <span className={NULL}>null</span>;
}

function isStack(name: string | undefined, value: unknown): value is string | string[] {
  if (name === undefined || !isStackKey(name)) return false;
  return typeof value === "string" ? value.includes("\n") : Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string");
}

function JsonNode({ name, value, last }: { name?: string; value: unknown; last: boolean }) {
  const comma = last ? null : <Punct>,</Punct>;

  if (isStack(name, value)) {
    return (
      <div>
        <Line>
          <KeyLabel name={name} />
          <Punct>{Array.isArray(value) ? `[${value.length} frames]` : "(stack trace)"}</Punct>
          {comma}
        </Line>
        <div className="pl-4">
          <StackTrace trace={value} label={name === "stack" ? "Stack trace" : `Stack trace (${name})`} />
        </div>
      </div>
    );
  }

  if (typeof value === "string" && value.includes("\n")) {
    // Multi-line text as written, each line on its own; the quotes mark where it starts and ends.
    return (
      <div>
        <Line>
          <KeyLabel name={name} />
          <Punct>{"(multi-line text)"}</Punct>
          {comma}
        </Line>
        <div className={`ml-4 border-l-2 border-emerald-300 pl-3 whitespace-pre-wrap dark:border-emerald-800 ${STRING} break-words`}>{value.replace(/\r\n?/g, "\n")}</div>
      </div>
    );
  }

  if (Array.isArray(value) || (value !== null && typeof value === "object")) {
    const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) {
      return (
        <Line>
          <KeyLabel name={name} />
          <Punct>
            {open}
            {close}
          </Punct>
          {comma}
        </Line>
      );
    }
    return (
      <div>
        <Line>
          <KeyLabel name={name} />
          <Punct>{open}</Punct>
        </Line>
        <div className="pl-4">
          {entries.map(([key, child], i) => (
            <JsonNode key={key ?? i} name={key} value={child} last={i === entries.length - 1} />
          ))}
        </div>
        <Line>
          <Punct>{close}</Punct>
          {comma}
        </Line>
      </div>
    );
  }

  return (
    <Line>
      <KeyLabel name={name} />
      <Scalar value={value} />
      {comma}
    </Line>
  );
}
