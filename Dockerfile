# One image for the API and the worker (docker-compose.yml picks the command), built in two
# stages: the build stage installs every dependency (TypeScript is a dev dependency), compiles to
# dist/ and prebuilds the Temporal workflow bundle (`npm run build`); the final stage holds the
# production dependencies and dist/ only, and runs plain node. The workspace packages
# (packages/*: the tool server and the typed client, installed by users on their own) are not part
# of the image, but npm ci needs their package.json files to match the lock.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/tool-server/package.json packages/tool-server/
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY migrations migrations
COPY temporal temporal
COPY scripts scripts
RUN npm run build

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Flows' custom_code nodes run Debian's CPython confined by bubblewrap (docs/sandbox.md, "The
# Python sandbox"); prlimit and setpriv come with util-linux. Pages that build their product data
# with JavaScript are rendered in Debian's headless Chromium (/usr/bin/chromium; docs/research.md,
# "The live web"). The worker needs these; the API image is the same one.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap python3 chromium \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
COPY packages/tool-server/package.json packages/tool-server/
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist dist
# DATA_DIR (default /app/.data: uploads, artifacts) must be writable by the unprivileged user.
RUN mkdir -p .data && chown node:node .data
USER node
EXPOSE 8080
# The worker: node --enable-source-maps dist/temporal/worker.js
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
