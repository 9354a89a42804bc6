/**
 * Runs in every test worker before its test files: the database URL and test
 * secrets chosen by the global setup (workers may not inherit its environment).
 */
import { inject } from "vitest";
import { trustClientAddressHeader } from "@/lib/http/client-address";

for (const [name, value] of Object.entries(inject("testEnv"))) process.env[name] ??= value;

// Route handlers are called directly: tests stamp the client's address as
// the server's guard (lib/http/node-guard.ts) would.
trustClientAddressHeader();
