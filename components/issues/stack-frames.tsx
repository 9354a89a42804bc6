import type { ExceptionView, FrameView, StackView } from "@/lib/grouping/stack-view";
import { pluralWord } from "@/lib/text/plural";

/** "src/cart.ts:12:7", "cart.price", or "unknown location". */
export function frameLocation(frame: FrameView): string {
  if (!frame.file) return frame.lineno !== null ? `line ${frame.lineno}` : "unknown location";
  return `${frame.file}${frame.lineno !== null ? `:${frame.lineno}${frame.colno !== null ? `:${frame.colno}` : ""}` : ""}`;
}

/** The source lines sent with a frame, numbered, its own line marked. Long lines wrap (a phone shows them whole). */
function SourceContext({ frame }: { frame: FrameView }) {
  if (frame.contextLine === null) return null;
  const first = frame.lineno !== null ? frame.lineno - frame.preContext.length : null;
  const lines = [...frame.preContext, frame.contextLine, ...frame.postContext];
  return (
    <ol aria-label="Source" className="mt-1.5 overflow-hidden rounded border border-zinc-200 bg-white font-mono text-[11px] leading-5 dark:border-zinc-800 dark:bg-zinc-950">
      {lines.map((line, i) => {
        const current = i === frame.preContext.length;
        return (
          <li key={i} aria-current={current ? "true" : undefined} className={`flex gap-2 px-2 ${current ? "bg-amber-100 font-semibold dark:bg-amber-900/40" : "text-zinc-600 dark:text-zinc-400"}`}>
            <span aria-hidden="true" className="w-8 shrink-0 text-right text-zinc-400 select-none">
              {first !== null ? first + i : ""}
            </span>
            <span className="min-w-0 break-all whitespace-pre-wrap">{line || " "}</span>
          </li>
        );
      })}
    </ol>
  );
}

/** One frame: its function, then its file and line on a line of their own, wrapped anywhere rather than cut. */
function Frame({ frame }: { frame: FrameView }) {
  return (
    <li
      data-frame={frame.inApp ? "app" : "library"}
      className={
        frame.inApp
          ? "rounded-md border-l-4 border-indigo-500 bg-indigo-50 px-2.5 py-1.5 dark:border-indigo-400 dark:bg-indigo-950/40"
          : "border-l-4 border-transparent px-2.5 py-1 text-zinc-500 dark:text-zinc-400"
      }
    >
      <p className="font-mono text-xs break-all">
        <span className={frame.inApp ? "font-semibold text-zinc-900 dark:text-zinc-100" : ""}>{frame.function ?? "<anonymous>"}</span>
      </p>
      <p className="font-mono text-[11px] break-all text-zinc-600 dark:text-zinc-400" data-testid="frame-location">
        {frameLocation(frame)}
      </p>
      {frame.inApp && <SourceContext frame={frame} />}
    </li>
  );
}

type FrameGroup = { inApp: true; frame: FrameView } | { inApp: false; frames: FrameView[] };

/** In-app frames one by one; each run of library frames as one group. */
function groupFrames(frames: FrameView[]): FrameGroup[] {
  const groups: FrameGroup[] = [];
  for (const frame of frames) {
    const last = groups.at(-1);
    if (frame.inApp) groups.push({ inApp: true, frame });
    else if (last && !last.inApp) last.frames.push(frame);
    else groups.push({ inApp: false, frames: [frame] });
  }
  return groups;
}

function Exception({ exception, cause }: { exception: ExceptionView; cause: boolean }) {
  const heading = [exception.type, exception.value].filter(Boolean).join(": ") || "Stack";
  const groups = groupFrames(exception.frames);
  const appFrames = exception.frames.filter((f) => f.inApp).length;
  return (
    <div className="space-y-2">
      <p className="text-sm font-semibold break-words text-red-700 dark:text-red-300">
        {cause && <span className="font-normal text-zinc-500">Caused by </span>}
        {heading}
      </p>
      {exception.frames.length > 0 && (
        <ol aria-label={`Frames of ${heading}`} className="space-y-1">
          {groups.map((group, i) =>
            group.inApp ? (
              <Frame key={i} frame={group.frame} />
            ) : (
              // Library frames folded (open when the stack has no frame of the application's own).
              <li key={i}>
                <details className="group" open={appFrames === 0}>
                  <summary className="flex cursor-pointer list-none items-center gap-1.5 px-2.5 py-1 text-xs text-zinc-500 select-none hover:text-zinc-800 dark:hover:text-zinc-200 [&::-webkit-details-marker]:hidden">
                    <span aria-hidden="true" className="transition-transform group-open:rotate-90">
                      ›
                    </span>
                    {group.frames.length} library {pluralWord(group.frames.length, "frame")}
                  </summary>
                  <ol className="space-y-0.5">
                    {group.frames.map((frame, j) => (
                      <Frame key={j} frame={frame} />
                    ))}
                  </ol>
                </details>
              </li>
            ),
          )}
        </ol>
      )}
    </div>
  );
}

/**
 * A stack as frames, newest call first: the application's own frames
 * highlighted with their source lines when the SDK sent them, runs of
 * library and runtime frames folded behind a toggle (native <details>, no
 * script), and the causes of a chained exception after it.
 */
export function StackFrames({ stack }: { stack: StackView }) {
  return (
    <div className="space-y-4">
      {stack.exceptions.map((exception, i) => (
        <Exception key={i} exception={exception} cause={i > 0} />
      ))}
    </div>
  );
}
