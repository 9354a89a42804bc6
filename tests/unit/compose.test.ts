import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SETTING_SPECS, settingsProblems } from "@/lib/config/settings";

/**
 * compose.yaml cannot be run here (no container engine), so this checks what
 * can be checked without one: its shape, that everything it passes to
 * Telltale is a setting, and that the environment it builds starts a
 * production server.
 */
const root = path.resolve(__dirname, "../..");
const compose = parse(fs.readFileSync(path.join(root, "compose.yaml"), "utf8")) as ComposeFile;
const dockerfileStages = [...fs.readFileSync(path.join(root, "Dockerfile"), "utf8").matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]);

type Service = {
  image?: string;
  build?: { context: string; target?: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  profiles?: string[];
  restart?: string;
};
type ComposeFile = { services: Record<string, Service> };

/** Compose's interpolation: ${NAME}, ${NAME:-default}, ${NAME:?error} and $$. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (whole, name: string | undefined, op?: string, arg?: string) => {
    if (whole === "$$") return "$";
    const set = env[name!];
    if (set) return set;
    if (op === "?") throw new Error(`required variable ${name} is missing: ${arg}`);
    return op === "-" ? arg! : "";
  });
}

const telltaleServices = Object.entries(compose.services).filter(([, s]) => s.build?.context === ".");
const sample = {
  POSTGRES_PASSWORD: "0123456789abcdef0123456789abcdef",
  TELLTALE_SECRET: "s".repeat(44),
  AUTH_SECRET: "a".repeat(44),
};

describe("compose.yaml", () => {
  it("builds the server and the tools image from the Dockerfile's stages", () => {
    expect(Object.fromEntries(telltaleServices.map(([name, s]) => [name, s.build?.target]))).toEqual({ migrate: "tools", telltale: "runner" });
    for (const [, s] of telltaleServices) expect(dockerfileStages).toContain(s.build!.target);
  });

  it("runs migrations once, to completion, before the server; the database first", () => {
    const { db, migrate, telltale } = compose.services;
    expect(db?.image).toMatch(/^postgres:/);
    expect(migrate?.depends_on?.db?.condition).toBe("service_healthy");
    expect(migrate?.restart).toBe("no");
    expect(telltale?.depends_on?.migrate?.condition).toBe("service_completed_successfully");
  });

  it("keeps Redis optional, behind a profile", () => {
    expect(compose.services.redis?.profiles).toEqual(["redis"]);
    const needsRedis = Object.entries(compose.services).filter(([, s]) => s.depends_on?.redis && s.depends_on.redis.required !== false);
    expect(needsRedis.map(([name]) => name)).toEqual([]);
  });

  it("passes Telltale only variables that are settings", () => {
    for (const [name, service] of telltaleServices) {
      const unknown = Object.keys(service.environment ?? {}).filter((key) => !(key in SETTING_SPECS));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
  });

  it("requires the secrets: Compose refuses to start without them", () => {
    const env = compose.services.telltale!.environment!;
    for (const name of ["DATABASE_URL", "TELLTALE_SECRET", "AUTH_SECRET"]) expect(env[name]).toMatch(/\$\{[A-Z_]+:\?/);
    const { TELLTALE_SECRET: _omitted, ...withoutSecret } = sample;
    expect(() => interpolate(env.TELLTALE_SECRET!, withoutSecret)).toThrow(/TELLTALE_SECRET/);
  });

  it("gives the server an environment a production start accepts, with the database of the db service", () => {
    const { db, migrate, telltale } = compose.services;
    const env = Object.fromEntries(Object.entries(telltale!.environment!).map(([k, v]) => [k, interpolate(String(v), sample)]));
    expect(settingsProblems({ ...env, NODE_ENV: "production" }, "production")).toEqual([]);
    expect(migrate!.environment).toEqual(telltale!.environment);

    const url = new URL(env.DATABASE_URL!);
    const postgres = Object.fromEntries(Object.entries(db!.environment!).map(([k, v]) => [k, interpolate(String(v), sample)]));
    expect({ host: url.hostname, user: url.username, password: url.password, database: url.pathname.slice(1) }).toEqual({
      host: "db",
      user: postgres.POSTGRES_USER,
      password: postgres.POSTGRES_PASSWORD,
      database: postgres.POSTGRES_DB,
    });
  });
});
