# One image for every subcommand: steward gateway | orchestrator | agent | operator | standalone | license | validate.
# Build with any OCI builder (`docker build -t steward .`) or offline with buildah: `npm run image:build` (docs/image.md).

# Stage 1: compile. Every dependency (TypeScript, tsx, vitest...) lives here and nowhere else.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY rego ./rego
COPY platform ./platform
COPY runtime ./runtime
COPY operator ./operator
COPY cmd ./cmd
# tsconfig.build.json leaves out tests, fixtures, the Rego conformance runner and the labelled corpora.
RUN npm run build
# The embedded database's first data folder, made once here (runtime/store/pglite-template.ts): a pod without a
# volume copies it instead of running PGlite's initdb on every start. It lands in node_modules/.cache/steward.
RUN node --input-type=module -e "const m = await import('./dist/runtime/store/pglite-template.js'); if (!(await m.ensureTemplate({ cacheDirs: m.defaultCacheDirs().slice(0, 1) }))) process.exit(1);" \
 && chmod -R a+rX node_modules/.cache/steward
# The runtime user, made here and copied: the last stage runs no command at all (so nothing of a build-time mount,
# not even an empty mount point, and no shell is needed there).
RUN groupadd --system --gid 10001 steward \
 && useradd --system --uid 10001 --gid steward --home-dir /app --shell /usr/sbin/nologin steward \
 && mkdir -p /out/var/lib/steward

# Stage 2: the production dependencies alone, installed from the lockfile (no install scripts: none is needed),
# less what only editors and browsers read: source maps, TypeScript sources and declarations, and node-sql-parser's
# per-dialect and browser bundles (its main entry, which runtime/connectors/sql/guard.ts imports, has every dialect).
# That is about half of node_modules (docs/image.md); `npm run image:test` imports every dependency in the image.
FROM node:24-bookworm-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -delete \
 && rm -rf node_modules/node-sql-parser/build node_modules/node-sql-parser/umd

# Stage 3: what runs. No compiler, no tests, no npm cache; a numeric non-root user; nothing written outside
# STEWARD_DATA_DIR, so it runs with a read-only root filesystem (docs/image.md).
FROM node:24-bookworm-slim AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
ARG CREATED=unknown
LABEL org.opencontainers.image.title="steward" \
      org.opencontainers.image.description="Open governance layer for AI agents on Kubernetes: operator, agent gateway, orchestrator and a Rego engine" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="docker.io/library/node:24-bookworm-slim"
ENV NODE_ENV=production \
    STEWARD_HOST=0.0.0.0 \
    STEWARD_DATA_DIR=/var/lib/steward
WORKDIR /app
COPY --from=build /etc/passwd /etc/group /etc/
COPY --from=build --chown=10001:10001 /out/var/lib/steward /var/lib/steward
COPY --from=deps /src/node_modules ./node_modules
COPY --from=build /src/node_modules/.cache/steward ./node_modules/.cache/steward
COPY --from=build /src/dist ./dist
# NB: the console's page, built into runtime/console/assets by npm run gen (kept in the repo); tsc does not copy it
COPY --from=build /src/runtime/console/assets ./dist/runtime/console/assets
COPY package.json ./
COPY config ./config
USER 10001:10001
EXPOSE 8080 8081
# PID 1 is node itself (exec form, no shell): SIGTERM reaches platform/shutdown.ts, which drains and exits 0.
# A 32 MB young generation: the pre-check allocates per request, and fewer scavenges cut its CPU time (docs/benchmarks.md).
ENTRYPOINT ["node", "--max-semi-space-size=32", "--enable-source-maps", "dist/cmd/main.js"]
CMD ["standalone"]
