const PLACEHOLDER = /(<[a-z]+>)/g;

/**
 * An issue's title, the message template: the masked parts (`<id>`,
 * `<duration>` ...) are set apart, so the reader sees at once what varies
 * between its events and what they share.
 */
export function IssueTitle({ title }: { title: string }) {
  return (
    <>
      {title.split(PLACEHOLDER).map((part, i) =>
        i % 2 === 1 ? (
          <span key={i} className="rounded bg-zinc-100 px-0.5 font-mono text-[0.85em] text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400">
            {part}
          </span>
        ) : (
          part
        ),
      )}
    </>
  );
}
