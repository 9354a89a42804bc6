import type { NextConfig } from "next";

// Headers for the dashboard's pages. API routes set their own (JSON, problem
// details) and are left alone.
const pageSecurityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
  // No script-src here: Next.js's inline bootstrap scripts would need nonces.
  // What this does block: framing, <base> hijacking, plugins.
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'; base-uri 'self'; object-src 'none'" },
];

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `next build` checks the app's own code; tests, scripts and tools are
  // checked by `npm run typecheck` (CI runs both).
  typescript: { tsconfigPath: "tsconfig.build.json" },
  // `next dev` logs each request's URL; these carry single-use tokens
  // (sign-in links, invitations), which must never reach a log.
  logging: {
    incomingRequests: { ignore: [/^\/signin\/confirm/, /^\/api\/auth\/callback/, /^\/invitations\//, /^\/api\/invitations\/[^/]+\/accept/] },
  },
  async headers() {
    return [
      { source: "/((?!api/).*)", headers: pageSecurityHeaders },
      // Pages whose URL carries a single-use token: never leak it in a Referer.
      { source: "/signin/confirm", headers: [{ key: "Referrer-Policy", value: "no-referrer" }] },
      { source: "/invitations/:token", headers: [{ key: "Referrer-Policy", value: "no-referrer" }] },
    ];
  },
};

export default nextConfig;
