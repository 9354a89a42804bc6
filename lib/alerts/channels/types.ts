import type { Notification } from "@/lib/alerts/messages";

/**
 * What a channel answered: sent (or, in development without a mail server,
 * logged), or not, and whether trying again could change that.
 * `unreachable`: no answer in time or no connection; the queue holds back the
 * rule's other notifications for this pass instead of waiting on each.
 */
export type SendOutcome =
  | { ok: true; answer: string; logged?: boolean }
  | { ok: false; retryable: boolean; answer: string; unreachable?: boolean };

/** Where one notification goes, resolved from its rule. */
export type Destination =
  | { transport: "email"; recipients: string[] }
  | { transport: "webhook"; url: string; secret: string };

type SendOptions = {
  /** The send's deadline: connect, send, answer. Never past the job's budget, never past the claim's lease. */
  timeoutMs: number;
};

/**
 * One way of telling people (lib/alerts/channels/index.ts lists them all):
 * a module per channel, its transport, and how it sends a notification.
 */
export type AlertChannel<T extends Destination["transport"] = Destination["transport"]> = T extends Destination["transport"]
  ? {
      transport: T;
      /** "email", "slack webhook": the start of the delivery log's channel column. */
      label: string;
      send(notification: Notification, to: Extract<Destination, { transport: T }>, options: SendOptions): Promise<SendOutcome>;
    }
  : never;

const MAX_ANSWER_CHARS = 300;

/** A receiver's answer bounded for the log. */
export const clipAnswer = (text: string) => (text.length <= MAX_ANSWER_CHARS ? text : `${text.slice(0, MAX_ANSWER_CHARS - 1)}…`);
