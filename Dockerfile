# One image for the API and the worker (docker-compose.yml picks the command).
# TypeScript runs through tsx, a runtime dependency, so there is no build step.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
USER node
EXPOSE 8080
CMD ["npm", "run", "api"]
