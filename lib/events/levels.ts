import { EventLevel as SchemaLevel } from "@/lib/db/generated/enums";

/** An event's level: the `EventLevel` enum of prisma/schema.prisma. */
export type EventLevel = SchemaLevel;

/** The levels, most severe first (the enum's order in the schema). No other imports: client components use it. */
export const EVENT_LEVELS = Object.values(SchemaLevel) as [EventLevel, ...EventLevel[]];
