import type { NextConfig } from "next";

// Headers of every page and answer. The Content-Security-Policy (with a
// per-response script nonce) and HSTS are set by proxy.ts.
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
];

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR lets two builds of one checkout live side by side (a test
  // run building while another serves); `.next` otherwise.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // A self-contained server in <distDir>/standalone (server.js and only the
  // node_modules it needs): what the Dockerfile ships and serverless hosts
  // run. `npm start` (next start) serves the same build.
  output: "standalone",
  poweredByHeader: false,
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
      { source: "/:path*", headers: securityHeaders },
      // Pages whose URL carries a single-use token: never leak it in a Referer.
      { source: "/signin/confirm", headers: [{ key: "Referrer-Policy", value: "no-referrer" }] },
      { source: "/invitations/:token", headers: [{ key: "Referrer-Policy", value: "no-referrer" }] },
    ];
  },
};

export default nextConfig;
