import Markdown, { type Components } from "react-markdown";

/**
 * Model output is untrusted text: rendered as Markdown with raw HTML dropped
 * (skipHtml), no images (nothing is fetched), and links shown as their text
 * only, so a summary can never send the reader anywhere.
 */
const SAFE_MARKDOWN: Components = {
  a: ({ children }) => <span className="underline decoration-dotted">{children}</span>,
  img: ({ alt }) => <span>{alt ? `[image: ${alt}]` : "[image]"}</span>,
  h1: ({ children }) => <p className="font-semibold">{children}</p>,
  h2: ({ children }) => <p className="font-semibold">{children}</p>,
  h3: ({ children }) => <p className="font-semibold">{children}</p>,
  ul: ({ children }) => <ul className="list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="list-decimal space-y-1 pl-5">{children}</ol>,
  code: ({ children }) => <code className="rounded bg-zinc-100 px-1 py-0.5 font-mono text-[0.85em] dark:bg-zinc-800">{children}</code>,
};

/**
 * A summary (the built-in digest or a model's answer) as safe Markdown. A
 * line break is a break, as in the plain text: the digest puts the window,
 * the totals and what to look at first on lines of their own, and each top
 * issue's counts and shape under its title.
 */
export function SummaryText({ text }: { text: string }) {
  return (
    <Markdown skipHtml components={SAFE_MARKDOWN}>
      {withHardBreaks(text)}
    </Markdown>
  );
}

/** Every single line break made a Markdown hard break (two spaces before it); blank lines still separate blocks. */
export function withHardBreaks(text: string): string {
  return text.replace(/([^\n])\n(?=[^\n])/g, "$1  \n");
}
