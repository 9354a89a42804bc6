import { vi } from "vitest";
import { resetSettings } from "@/lib/config/settings";

/**
 * vi.stubEnv, then the settings are read again (they are parsed once per
 * process otherwise, as in production).
 */
export function stubEnv(name: string, value: string | undefined): void {
  vi.stubEnv(name, value);
  resetSettings();
}

/** vi.unstubAllEnvs, then the settings are read again. */
export function unstubEnvs(): void {
  vi.unstubAllEnvs();
  resetSettings();
}

/** Sets a variable directly (for values a test restores itself), then re-reads the settings. */
export function setEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  resetSettings();
}
