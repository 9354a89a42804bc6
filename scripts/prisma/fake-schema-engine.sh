#!/bin/sh
# Stand-in for Prisma's native schema engine on machines that cannot download
# it. `prisma generate` only asks it for --version; migrations go through
# @prisma/schema-engine-wasm instead (ops/db-migrate.ts).
echo "schema-engine-cli 0edf323efd1d98336f3f0a68684b56f689b900d3"
