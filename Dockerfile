# One image for the api, the worker and the one-shot migrate service (see docker-compose.yml).
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

USER node
EXPOSE 8080
CMD ["node", "--import", "tsx", "api/main.ts"]
