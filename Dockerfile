# syntax=docker/dockerfile:1
# The production image: compiled JavaScript (dist/) and runtime dependencies only, run by the
# non-root `node` user, one process per container (ROLE=api | worker | all).
#   docker build -t payment-gateway .
#   docker compose up -d --build        (compose.yaml: PostgreSQL, migrations, an api and a worker)
# Where there is no Docker engine, CI runs the same steps natively: npm ci, npm run build, then
# scripts/check-dist.mjs starts `node dist/server.js` from a directory holding what the runtime
# stage holds and waits for /readyz (see .ci/run).

ARG NODE_IMAGE=node:20-bookworm-slim

# better-sqlite3 installs a prebuilt binary; the compiler is its fallback where none matches.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app

# 1. Build: every dependency (TypeScript), then tsc and the runtime assets into dist/.
FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

# 2. Runtime dependencies only.
FROM toolchain AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

# 3. Runtime: no compiler, no TypeScript sources, no devDependencies. Files belong to root, so
# the service cannot rewrite its own code; only ./data (the sandbox's SQLite file) is writable.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# package.json says "type": "module" (dist/ is ESM) and names the `gateway` bin.
COPY package.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# /readyz: the database answers and migrations are applied (workers answer it too). Node's own
# fetch, so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself; the server then stops accepting
# connections, finishes in-flight requests and running jobs, closes the database and exits 0.
STOPSIGNAL SIGTERM
# A young generation of 32 MB a semi-space (V8's default grows to 16): a payment allocates a few
# hundred short-lived objects, and fewer, larger scavenges measured ~4 % more payments/s
# (docs/performance.md). npm start and bench/ run the server with the same flag.
CMD ["node", "--max-semi-space-size=32", "dist/server.js"]
