import type { NextConfig } from "next";
import { PHASE_PRODUCTION_SERVER } from "next/constants";
import { SECURITY_HEADERS } from "./lib/edge/security-headers";

export default function nextConfig(phase: string): NextConfig {
  return {
    // NEXT_DIST_DIR lets two builds of one checkout live side by side (a test
    // run building while another serves); `.next` otherwise.
    distDir: process.env.NEXT_DIST_DIR || ".next",
    // A self-contained server in <distDir>/standalone (server.js and only the
    // node_modules it needs): what the Dockerfile ships and serverless hosts
    // run. It is a build output: `npm start` (next start) serves the same build
    // from <distDir>, and its server phase leaves the option out, since
    // `next start` warns that it "does not work with output: standalone".
    output: phase === PHASE_PRODUCTION_SERVER ? undefined : "standalone",
    poweredByHeader: false,
    // Sentry SDKs post to /api/<project>/envelope/ with the slash and do not
    // follow redirects: the route answers with and without it.
    skipTrailingSlashRedirect: true,
    // `next build` checks the app's own code; tests, scripts, harness, ops and
    // tools are checked by `npm run typecheck` (CI runs both).
    typescript: { tsconfigPath: "tsconfig.build.json" },
    // `next dev` logs each request's URL; these carry single-use tokens
    // (sign-in links, invitations), which must never reach a log.
    logging: {
      incomingRequests: { ignore: [/^\/signin\/confirm/, /^\/api\/auth\/callback/, /^\/invitations\//, /^\/api\/invitations\/[^/]+\/accept/] },
    },
    async headers() {
      return [
        { source: "/:path*", headers: [...SECURITY_HEADERS] },
        // Pages whose URL carries a single-use token: never leak it in a Referer
        // to another site. Not no-referrer: their own form's POST would carry
        // `Origin: null`, and over plain http to an address other than
        // localhost (a LAN address) browsers send no Sec-Fetch-Site either, so
        // lib/auth/same-origin.ts could not tell the page from another site.
        { source: "/signin/confirm", headers: [{ key: "Referrer-Policy", value: "same-origin" }] },
        { source: "/invitations/:token", headers: [{ key: "Referrer-Policy", value: "same-origin" }] },
      ];
    },
  };
}
