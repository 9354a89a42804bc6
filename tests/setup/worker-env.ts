/**
 * Runs in every test worker before its test files: the database URL and test
 * secrets chosen by the global setup (workers may not inherit its environment).
 */
import { inject } from "vitest";

for (const [name, value] of Object.entries(inject("testEnv"))) process.env[name] ??= value;
