# syntax=docker/dockerfile:1
#
# Arbiter control-plane service (HTTP port 3000): a production image.
#
# Build from the repository root (the build context must be the whole monorepo):
#   docker build -f docker/control-plane.Dockerfile -t arbiter/control-plane:0.1.0 .
# Run (production needs real settings; see docker/README.md and k8s/README.md):
#   docker run --rm -p 3000:3000 --env-file control-plane.env arbiter/control-plane:0.1.0
#
# The three Dockerfiles (control-plane, decisions, identity) are identical except for the
# app name and port; keep them in step. tools/deployables checks them.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- manifests: the lockfile and every workspace's package.json, nothing else --------------
# Later stages copy only this, so their `npm ci` layer is reused until a dependency changes.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /repo
COPY . .
RUN mkdir -p /manifests \
 && cp package.json package-lock.json /manifests/ \
 && for f in apps/*/package.json libs/*/package.json tools/*/package.json; do \
      mkdir -p "/manifests/$(dirname "$f")" && cp "$f" "/manifests/$f"; \
    done

# --- build: all dependencies (dev included), then turbo builds the app and its libraries ----
FROM ${NODE_IMAGE} AS build
ENV TURBO_TELEMETRY_DISABLED=1 \
    SCARF_ANALYTICS=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /repo
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npx turbo run build --filter=@arbiter/control-plane... --output-logs=errors-only
# Collect what the runtime needs: each built workspace's dist + package.json (node_modules/@arbiter/*
# are symlinks to these folders), and the app's config/ (read from next to dist/).
RUN mkdir -p /out \
 && for d in libs/* apps/control-plane; do \
      if [ -d "$d/dist" ]; then mkdir -p "/out/$d" && cp -R "$d/dist" "$d/package.json" "/out/$d/"; fi; \
    done \
 && cp -R apps/control-plane/config /out/apps/control-plane/config \
 && test -f /out/apps/control-plane/dist/main.js

# --- prod-deps: production dependencies of the app's workspace and its library workspaces ---
FROM ${NODE_IMAGE} AS prod-deps
ENV SCARF_ANALYTICS=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /repo
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund --workspace=@arbiter/control-plane

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and read-only for the service user: the service never writes its own code.
COPY --from=prod-deps /repo/ ./
COPY --from=build /out/ ./
WORKDIR /app/apps/control-plane
# The `node` user of the base image, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 3000
# Liveness only (/health/live): a database or NATS outage must not mark the container unhealthy.
# No curl in slim images, so node makes the request.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "require('node:http').get({ host: '127.0.0.1', port: Number(process.env.Http__Port || 3000), path: '/health/live', timeout: 4000 }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('timeout', () => process.exit(1)).on('error', () => process.exit(1))"]
CMD ["node", "dist/main.js"]
