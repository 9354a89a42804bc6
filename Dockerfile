# Telltale container image, built on Next.js's standalone output
# (docs/deploy/container.md).
#
#   docker build -t telltale .                        # the server (last stage)
#   docker build --target tools -t telltale-tools .   # db:migrate and the operator CLI
#
# `npm run test:standalone` (scripts/test-standalone.ts) reads this file: it
# performs the runner stage's COPY steps on a local build, starts its CMD with
# its ENV, runs its HEALTHCHECK, and runs the tools stage's CMD (migrations)
# and the CLI, then ingest and sign-in smoke tests against it. Keep the
# runner stage to ENV, WORKDIR, COPY --from=build, USER, EXPOSE, HEALTHCHECK
# and CMD lines, which that script understands.

ARG NODE_IMAGE=node:20-slim

# --- build: dependencies and `next build` ------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies first (a layer reused until the lockfile changes). npm ci runs
# the postinstall: patch-package (patches/) and `prisma generate`, which needs
# the schema and its script.
COPY package.json package-lock.json prisma.config.ts ./
COPY patches ./patches
COPY prisma ./prisma
COPY scripts/prisma ./scripts/prisma
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- tools: one-off commands on the full source tree ---------------------------
# Default: apply pending migrations (`npm run db:migrate`) to DATABASE_URL (use
# a direct connection, DIRECT_URL, not a transaction-mode pooler). Also runs
# `npm run telltale -- ...` (project create, signin-link, retention).
FROM build AS tools
ENV NODE_ENV=production
USER node
CMD ["npm", "run", "db:migrate"]

# --- runner: the server --------------------------------------------------------
FROM ${NODE_IMAGE} AS runner
WORKDIR /app
# HOSTNAME: the standalone server listens on it, and Docker sets it to the
# container id; 0.0.0.0 listens on every interface. The larger young
# generation is what `npm start` uses too (fewer collections under load).
ENV NODE_ENV=production \
    PORT=3000 \
    HOSTNAME=0.0.0.0 \
    NEXT_TELEMETRY_DISABLED=1 \
    NODE_OPTIONS=--max-semi-space-size=64
# server.js, the compiled app and only the node_modules it uses; then the
# static assets, which the standalone output leaves out. (The app has no
# public/ folder: its icon is app/icon.svg. Add one here if that changes.)
COPY --from=build --chown=node:node /app/.next/standalone ./
COPY --from=build --chown=node:node /app/.next/static ./.next/static
USER node
EXPOSE 3000
# Liveness only (no database): readiness is GET /api/health/ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server.js"]
