# One image for every subcommand: steward gateway | orchestrator | agent | operator | standalone | license | validate.
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
RUN npm run build && npm prune --omit=dev
# The embedded database's first data folder, made once here (runtime/store/pglite-template.ts): a pod without a
# volume copies it instead of running PGlite's initdb on every start.
RUN node --input-type=module -e "const m = await import('./dist/runtime/store/pglite-template.js'); if (!(await m.ensureTemplate({ cacheDirs: m.defaultCacheDirs().slice(0, 1) }))) process.exit(1);" \
 && chmod -R a+rX node_modules/.cache/steward

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    STEWARD_HOST=0.0.0.0 \
    STEWARD_DATA_DIR=/var/lib/steward
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY config ./config
RUN groupadd --system --gid 10001 steward \
 && useradd --system --uid 10001 --gid steward --home-dir /app --shell /usr/sbin/nologin steward \
 && mkdir -p /var/lib/steward && chown steward:steward /var/lib/steward
USER 10001:10001
EXPOSE 8080 8081
# A 32 MB young generation: the pre-check allocates per request, and fewer scavenges cut its CPU time (docs/benchmarks.md).
ENTRYPOINT ["node", "--max-semi-space-size=32", "--enable-source-maps", "dist/cmd/main.js"]
CMD ["standalone"]
