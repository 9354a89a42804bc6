/**
 * "Typed from the same schemas as the server": the client's EventInput and
 * the server's zod schema must agree. These are compile-time checks
 * (`npm run typecheck` fails on a mismatch); a field added to, removed from
 * or retyped in `eventInputSchema` breaks them until the client follows.
 */
import { expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { eventInputSchema } from "@/lib/events/schema";
import type { EventInput } from "@/packages/client/src/index";

type ServerInput = z.input<typeof eventInputSchema>;
type Shared = Extract<keyof ServerInput, keyof EventInput>;

it("every field both sides know has the same type on both", () => {
  expectTypeOf<Pick<EventInput, Shared>>().toEqualTypeOf<Pick<ServerInput, Shared>>();
  expectTypeOf<Pick<EventInput, Shared>>().toExtend<Pick<ServerInput, Shared>>();
  expectTypeOf<Pick<ServerInput, Shared>>().toExtend<Pick<EventInput, Shared>>();
});

it("the client knows every field the server takes", () => {
  expectTypeOf<Exclude<keyof ServerInput, keyof EventInput>>().toEqualTypeOf<never>();
});

it("the client sends no field the server does not take", () => {
  expectTypeOf<Exclude<keyof EventInput, keyof ServerInput>>().toEqualTypeOf<never>();
});

it("so the whole event type is the server's input type", () => {
  expectTypeOf<EventInput>().toEqualTypeOf<ServerInput>();
});
