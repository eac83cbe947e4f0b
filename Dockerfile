# The Sluice service in local mode (SQLite, Python replicas as child processes), with its data
# in the /data volume. docs/self-hosting.md says how to run it, back it up and upgrade it.
#
#   docker build -t sluice .
#   docker run -p 8080:8080 -v sluice-data:/data sluice
#
# Function code runs with Python 3.11 from Debian; a function asking for another python_version
# needs that interpreter in the image (add it below).

# Dependencies, with the tools better-sqlite3 needs when no prebuilt binary fits.
FROM node:20-bookworm-slim AS dependencies
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# python3-venv and pip: builds make a virtual environment per set of packages; bubblewrap
# confines function code (it needs user namespaces: see docs/self-hosting.md, "Docker");
# tini forwards SIGTERM to the service and reaps replicas' children.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY . .
# Listens on every interface of the container; the data directory is the volume.
ENV HOST=0.0.0.0 PORT=8080 SLUICE_DATA_DIR=/data NODE_ENV=production
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--", "node", "bin/sluice.js"]
CMD ["start"]
