import { stackLines, type StackLineKind } from "@/components/stack-lines";
import { pluralWord } from "@/lib/text/plural";

const lineClass: Record<StackLineKind, string> = {
  head: "font-semibold text-red-700 dark:text-red-300",
  app: "text-zinc-900 dark:text-zinc-100",
  library: "text-zinc-400 dark:text-zinc-500",
  other: "text-zinc-600 dark:text-zinc-400",
};

/**
 * A stack trace, one frame per line: the error first and bold, the
 * application's frames in full colour, dependencies and the runtime dimmed,
 * so the frame to look at stands out.
 */
export function StackTrace({ trace, label = "Stack trace" }: { trace: string | string[]; label?: string }) {
  const lines = stackLines(trace);
  const libraryFrames = lines.filter((l) => l.kind === "library").length;
  return (
    <figure className="my-1 space-y-1">
      <ol aria-label={label} className="overflow-x-auto border-l-2 border-red-300 pl-3 whitespace-pre dark:border-red-800">
        {lines.map((line, i) => (
          <li key={i} className={lineClass[line.kind]} data-frame={line.kind}>
            {line.text}
          </li>
        ))}
      </ol>
      {libraryFrames > 0 && (
        <figcaption className="pl-3.5 font-sans text-[11px] text-zinc-500">
          {libraryFrames} library or runtime {pluralWord(libraryFrames, "frame")} dimmed
        </figcaption>
      )}
    </figure>
  );
}
