# syntax=docker/dockerfile:1
# The trace-connectors image: `node dist/worker/main.js` (a worker) by default; any `trace-sync`
# command with `node bin/trace-sync.cjs <command>` (docker-compose.yml runs the sandbox that way).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY activities ./activities
COPY cli ./cli
COPY connectors ./connectors
COPY sandbox ./sandbox
COPY worker ./worker
COPY workflows ./workflows
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim AS runtime
# LOG_FORMAT: JSON lines for the log driver even under `docker run -t` (unset, a terminal would get pretty lines).
ENV NODE_ENV=production \
    TRACE_DATA_DIR=/data \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# `npm run build` above wrote the workflow bundle (dist/workflow-bundle), so the worker starts without webpack, then
# polls; SIGTERM shuts it down gracefully.
STOPSIGNAL SIGTERM
CMD ["node", "dist/worker/main.js"]
