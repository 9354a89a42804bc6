export { createClient } from "./client.js";
export { mapLevel } from "./event.js";
export type {
  CallOptions,
  ClientOptions,
  ClientProblem,
  ClientStats,
  Clock,
  DropReason,
  EventDefaults,
  EventInput,
  EventUser,
  FetchLike,
  FlushOptions,
  Level,
  TelltaleClient,
} from "./types.js";
