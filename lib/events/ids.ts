import { randomFillSync } from "node:crypto";
import { v7 as uuidv7 } from "uuid";

// The uuid package asks the OS for 16 random bytes per id; drawing them from
// a pool refilled 256 ids at a time costs a fraction of that, which matters
// at thousands of events per second (docs/performance.md#figures-behind-the-code).
const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

/** A new event id: UUIDv7 (time-ordered, so inserts land at the index's right edge). */
export function newEventId(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.subarray(offset, offset + 16);
  offset += 16;
  return uuidv7({ random });
}
