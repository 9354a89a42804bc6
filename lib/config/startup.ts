import { settings, settingsProblems } from "@/lib/config/settings";
import { logger } from "@/lib/log";

/**
 * The configuration, checked when a server process starts (instrumentation.ts):
 * a malformed value or a missing production secret stops it with a message
 * naming each problem, and what still works without mail is said loudly.
 * `npm start` checks the same before it starts the server; this also covers
 * a server started another way (the standalone server.js of a container).
 */
export function checkSettingsAtStart(): void {
  const mode = process.env.NODE_ENV === "production" ? "production" : "development";
  const problems = settingsProblems(process.env, mode);
  if (problems.length > 0) {
    console.error(`Telltale cannot start: the configuration has problems.\n${problems.map((p) => `  - ${p}`).join("\n")}\nSee .env.example and the README's configuration table.`);
    process.exit(1);
  }
  const s = settings();
  if (s.production && !s.mail.server) {
    logger.warn(
      "EMAIL_SERVER is not set: nobody can receive a sign-in link or an invitation. Set EMAIL_SERVER to an SMTP URL, " +
        "or print a one-time sign-in link for an existing user with: npm run telltale -- signin-link --email <address>",
    );
  }
}
