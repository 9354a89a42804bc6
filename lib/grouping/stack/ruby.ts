import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, exception, frame, isCutLine, lineNumber } from "@/lib/grouping/stack/common";

/**
 * Ruby backtraces, newest call first:
 *   app/models/cart.rb:12:in 'Cart#total': undefined method 'price' for nil (NoMethodError)
 *   	from app/controllers/carts_controller.rb:8:in 'CartsController#show'
 * Ruby 3.4 quotes labels with '...' and names the class; earlier versions
 * wrote `total'. A line of the numbered form (Ruby 2.5 to 2.7 on a terminal:
 * "Traceback (most recent call last):", then `1: from ...` oldest first) is
 * read too. A new first line with a message after frames starts the
 * exception's cause.
 */

const FRAME = /^(?:(\d+): )?(?:from )?(.+?):(\d+):in [`'](.*?)'(?:: ([\s\S]*))?$/;
const BARE_FRAME = /^(?:from )?(\S+\.(?:rb|erb|rake|haml|slim|builder)):(\d+)$/;
const MESSAGE = /^([\s\S]*?) ?\(([A-Z][\w:]*)\)$/;

export function isRubyFrameLine(trimmed: string): boolean {
  return trimmed.includes(":in ") && FRAME.test(trimmed);
}

type Block = {
  frames: { frame: StackFrame; age: number }[];
  type?: string;
  value?: string;
  /** Of the numbered form, and whether its last line (the newest call) was read. */
  numbered: boolean;
  complete: boolean;
};

export function parseRubyBacktrace(lines: string[]): ExceptionValue[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  const open = (numbered: boolean): Block => {
    current = { frames: [], numbered, complete: false };
    blocks.push(current);
    return current;
  };
  for (const line of lines) {
    if (isCutLine(line)) continue;
    const trimmed = line.trim();
    const match = FRAME.exec(trimmed);
    const bare = match === null ? BARE_FRAME.exec(trimmed) : null;
    if (match === null && bare === null) continue;
    const f =
      match !== null
        ? frame("ruby", { path: match[2], line: lineNumber(match[3]!), function: match[4] || undefined })
        : frame("ruby", { path: bare![1], line: lineNumber(bare![2]!) });
    const number = match?.[1];
    const message = match?.[5];
    const isFrom = number !== undefined || trimmed.startsWith("from ");
    let block: Block;
    // Age 0 is the newest call: the line with the message. The numbered form counts down to it.
    let age: number;
    if (!isFrom && message !== undefined) {
      if (current !== undefined && current.numbered && !current.complete) {
        block = current;
        block.complete = true;
      } else {
        block = open(false);
      }
      age = 0;
      const typed = MESSAGE.exec(message.trim());
      block.type = typed?.[2];
      block.value = (typed !== null ? typed[1] : message).trim() || undefined;
    } else {
      const numbered = number !== undefined;
      block = current === undefined || (numbered && (current.complete || !current.numbered)) ? open(numbered) : current;
      age = numbered ? Number(number) : block.frames.length;
    }
    block.frames.push({ frame: f, age });
  }
  const exceptions = blocks.map((b) => {
    const ordered = [...b.frames].sort((x, y) => x.age - y.age).map((x) => x.frame);
    return exception(b.type, b.value, ordered, true);
  });
  // Text order: the exception, then its cause.
  return chain(exceptions, true);
}
