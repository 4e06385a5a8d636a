import { describe, expect, it } from "vitest";
import { detectAutoBuild, NOTHING_FOUND_REASON } from "../../../src/repo-analysis/auto/detect.js";
import { DockerfileWriter } from "../../../src/repo-analysis/auto/dockerfile-writer.js";
import { detectPackageManager } from "../../../src/repo-analysis/auto/package-manager.js";
import { readPackageJson } from "../../../src/repo-analysis/auto/types.js";
import { DEFAULT_BASE_IMAGES, type AutoBuild, type BaseImages } from "../../../src/repo-analysis/repo-check.js";
import { sourceTreeFromFiles } from "../../../src/repo-analysis/source-tree.js";
import { fixture, fixtures, type FixtureName } from "./fixtures.js";

type Found = Extract<AutoBuild, { found: true }>;

function found(name: FixtureName | Record<string, string>, baseImages?: Partial<BaseImages>): Found {
  const tree = typeof name === "string" ? fixture(name) : sourceTreeFromFiles(name);
  const { auto } = detectAutoBuild(tree, baseImages ? { baseImages } : {});
  if (!auto.found) throw new Error(`expected a build, got: ${auto.reason}`);
  return auto;
}

/** An expected Dockerfile written out below, as lines (the leading newline is the template's). */
const lines = (text: string) => text.replace(/^\n/, "").split("\n");

/** Warnings come with a found build; a build not found has none. */
const warningsOf = (plan: { auto: AutoBuild }) => (plan.auto.found ? plan.auto.warnings : []);

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

describe("detectAutoBuild: one fixture per framework", () => {
  it.each<[FixtureName, Omit<Found, "found" | "dockerfile" | "warnings">]>([
    ["plainHtml", { name: "Static site", install: null, build: null, output: "." }],
    ["publicFolder", { name: "Static site", install: null, build: null, output: "public" }],
    ["staticfile", { name: "Static site", install: null, build: null, output: "site" }],
    ["viteReact", { name: "Vite (React)", install: "npm ci", build: "npm run build -- --base=/app/", output: "dist" }],
    ["viteVue", { name: "Vite (Vue)", install: "pnpm install --frozen-lockfile", build: "pnpm run build --base=/app/", output: "build/client" }],
    ["viteSvelte", { name: "Vite (Svelte)", install: "yarn install --frozen-lockfile", build: "yarn run build --base=/app/", output: "dist" }],
    ["astroStatic", { name: "Astro", install: "npm ci", build: "npm run build -- --base /app", output: "dist" }],
    ["nextExport", { name: "Next.js (static export)", install: "npm ci", build: "npm run build", output: "out" }],
    ["nuxtGenerate", { name: "Nuxt (static)", install: "npm ci", build: "npm run build", output: ".output/public" }],
    ["svelteKitStatic", { name: "SvelteKit (static)", install: "npm ci", build: "npm run build", output: "build" }],
    ["createReactApp", { name: "Create React App", install: "npm ci", build: "npm run build", output: "build" }],
    ["angular", { name: "Angular", install: "npm ci", build: "npm run build -- --base-href /app/", output: "dist/ng-app/browser" }],
    ["nextStandalone", { name: "Next.js (standalone)", install: "npm ci", build: "npm run build", start: "node server.js" }],
    ["nextServer", { name: "Next.js", install: "yarn install --frozen-lockfile", build: "yarn run build", start: "npm start" }],
    ["nuxt", { name: "Nuxt", install: "npm ci", build: "npm run build", start: "node .output/server/index.mjs" }],
    ["svelteKitNode", { name: "SvelteKit", install: "npm ci", build: "npm run build", start: "node build" }],
    ["astroServer", { name: "Astro (server)", install: "npm ci", build: "npm run build", start: "node ./dist/server/entry.mjs" }],
    ["express", { name: "Express", install: "npm ci", build: null, start: "node server.js" }],
    ["fastify", { name: "Fastify", install: "npm ci", build: null, start: "node src/index.js" }],
    ["koa", { name: "Koa", install: "yarn install --immutable", build: null, start: "node app.js" }],
    ["hono", { name: "Hono", install: "bun install --frozen-lockfile", build: null, start: "bun run start" }],
    ["nestjs", { name: "NestJS", install: "npm ci", build: "npm run build", start: "node dist/main" }],
    ["nodeStartScript", { name: "Node.js", install: null, build: null, start: "node server.js" }],
    ["nodeIndexJs", { name: "Node.js", install: null, build: null, start: "node index.js" }],
    ["flask", { name: "Flask", install: "pip install -r requirements.txt", build: null, start: "gunicorn --bind 0.0.0.0:$PORT app:app" }],
    ["flaskFactory", { name: "Flask", install: "pip install -r requirements.txt gunicorn", build: null, start: "gunicorn --bind 0.0.0.0:$PORT \"myapp:create_app()\"" }],
    ["fastapi", { name: "FastAPI", install: "uv sync --locked --no-dev --no-install-project && pip install uvicorn", build: null, start: "uvicorn app.main:app --host 0.0.0.0 --port $PORT" }],
    ["django", { name: "Django", install: "pip install -r requirements.txt", build: "python manage.py collectstatic --noinput", start: "python manage.py migrate --noinput && gunicorn --bind 0.0.0.0:$PORT mysite.wsgi:application" }],
    ["python", { name: "Python", install: null, build: null, start: "python main.py" }],
    ["goRoot", { name: "Go", install: "go mod download", build: "go build -trimpath -ldflags=\"-s -w\" -o /out/app .", start: "/usr/local/bin/app" }],
    ["goCmd", { name: "Go", install: "go mod download", build: "go build -trimpath -ldflags=\"-s -w\" -o /out/app ./cmd/api", start: "/usr/local/bin/app" }],
  ])("%s", (name, expected) => {
    const { found: _found, dockerfile: _dockerfile, warnings: _warnings, ...fields } = found(name);
    expect(fields).toEqual(expected);
  });

});

/**
 * The Dockerfiles of the frameworks whose builds download packages (so the Docker test cannot build
 * them here), compared line by line with the expected text.
 */
const EXPECTED_DOCKERFILES: Partial<Record<FixtureName, string>> = {
  viteReact: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build -- --base=/app/

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/dist ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  viteVue: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable
COPY package.json pnpm-lock.yaml ./
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm run build --base=/app/

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/build/client ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  viteSvelte: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable
COPY package.json yarn.lock ./
RUN yarn install --frozen-lockfile
COPY . .
RUN yarn run build --base=/app/

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/dist ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  astroStatic: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build -- --base /app

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/dist ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  nextExport: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
# next.config gets basePath "/app" (the app is served under /app/); the original is kept as next.config.user.mjs.
RUN mv next.config.mjs next.config.user.mjs && cp .reposite/next.config.mjs next.config.mjs
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/out ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  nuxtGenerate: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV NUXT_APP_BASE_URL=/app/
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/.output/public ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  svelteKitStatic: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV BASE_PATH=/app
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/build ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  createReactApp: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV PUBLIC_URL=/app
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/build ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  angular: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build -- --base-href /app/

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY .reposite/serve.mjs /opt/reposite/serve.mjs
COPY --from=build /app/dist/ng-app/browser ./
USER node
EXPOSE 3000
CMD ["node", "/opt/reposite/serve.mjs", "/app"]
`,
  nextStandalone: `
# Warning: Next.js writes addresses from the site root (/_next/…), but the app is served under /app/ with that prefix removed: set \`assetPrefix: "/app"\` in next.config so scripts and styles load through /app/, and prefix in-app links with /app — or serve the app on its own domain.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV NEXT_TELEMETRY_DISABLED=1
ENV HOSTNAME=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app/public ./public
COPY --from=build --chown=node:node /app/.next/standalone ./
COPY --from=build --chown=node:node /app/.next/static ./.next/static
USER node
EXPOSE 3000
CMD ["node", "server.js"]
`,
  nextServer: `
# Warning: Next.js writes addresses from the site root (/_next/…), but the app is served under /app/ with that prefix removed: set \`assetPrefix: "/app"\` in next.config so scripts and styles load through /app/, and prefix in-app links with /app — or serve the app on its own domain.
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable
COPY package.json yarn.lock ./
RUN yarn install --frozen-lockfile
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN yarn run build
RUN yarn install --production --frozen-lockfile --ignore-scripts --prefer-offline

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV NEXT_TELEMETRY_DISABLED=1
ENV HOSTNAME=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app ./
USER node
EXPOSE 3000
CMD ["npm", "start"]
`,
  nuxt: `
# Warning: Nuxt writes addresses from the site root (/_nuxt/…), but the app is served under /app/ with that prefix removed: set \`NUXT_APP_CDN_URL=/app/\` in the app's settings so scripts and styles load through /app/, and prefix in-app links with /app — or serve the app on its own domain.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/.output ./.output
USER node
EXPOSE 3000
CMD ["node", ".output/server/index.mjs"]
`,
  svelteKitNode: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build
RUN npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "build"]
`,
  astroServer: `
# Warning: Astro writes addresses from the site root (/_astro/…), but the app is served under /app/ with that prefix removed: set \`build.assetsPrefix: "/app"\` in astro.config so scripts and styles load through /app/, and prefix in-app links with /app — or serve the app on its own domain.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build
RUN npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "./dist/server/entry.mjs"]
`,
  express: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "server.js"]
`,
  fastify: `
# Warning: Fastify listens on 127.0.0.1 unless told otherwise, which a container does not expose: call \`listen({ host: "0.0.0.0", port: Number(process.env.PORT) })\`.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "src/index.js"]
`,
  koa: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable
ENV YARN_NODE_LINKER=node-modules
COPY package.json yarn.lock .yarnrc.yml ./
RUN yarn install --immutable
COPY . .
RUN yarn workspaces focus --all --production

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "app.js"]
`,
  hono: `
FROM oven/bun:1 AS build
WORKDIR /app
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
RUN rm -rf node_modules && bun install --production --frozen-lockfile --ignore-scripts

FROM oven/bun:1
ENV NODE_ENV=production
ENV PORT=3000
ENV HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app ./
USER bun
EXPOSE 3000
CMD ["bun", "run", "start"]
`,
  nestjs: `
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build
RUN npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
ENV PORT=3000
WORKDIR /app
COPY --from=build /app ./
USER node
EXPOSE 3000
CMD ["node", "dist/main"]
`,
  flask: `
FROM python:3.12-slim-bookworm AS build
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
ENV PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN python -m venv /opt/venv
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt ./
RUN pip install -r requirements.txt
COPY . .

FROM python:3.12-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
ENV PORT=3000
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app ./
USER 10001:10001
EXPOSE 3000
CMD exec gunicorn --bind 0.0.0.0:$PORT app:app
`,
  flaskFactory: `
FROM python:3.12-slim-bookworm AS build
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
ENV PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN python -m venv /opt/venv
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt ./
RUN pip install -r requirements.txt gunicorn
COPY . .

FROM python:3.12-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
ENV PORT=3000
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app ./
USER 10001:10001
EXPOSE 3000
CMD exec gunicorn --bind 0.0.0.0:$PORT "myapp:create_app()"
`,
  fastapi: `
FROM python:3.12-slim-bookworm AS build
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
ENV PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN pip install uv
RUN python -m venv /opt/venv
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
ENV UV_PROJECT_ENVIRONMENT=/opt/venv
ENV UV_PYTHON_DOWNLOADS=never
COPY pyproject.toml uv.lock ./
RUN uv sync --locked --no-dev --no-install-project && pip install uvicorn
COPY . .

FROM python:3.12-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
ENV PORT=3000
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app ./
USER 10001:10001
EXPOSE 3000
CMD exec uvicorn app.main:app --host 0.0.0.0 --port $PORT
`,
  django: `
FROM python:3.12-slim-bookworm AS build
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
ENV PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN python -m venv /opt/venv
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt ./
RUN pip install -r requirements.txt
COPY . .
RUN python manage.py collectstatic --noinput

FROM python:3.12-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV VIRTUAL_ENV=/opt/venv
ENV PATH=/opt/venv/bin:$PATH
ENV PORT=3000
WORKDIR /app
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app ./
USER 10001:10001
EXPOSE 3000
CMD python manage.py migrate --noinput && exec gunicorn --bind 0.0.0.0:$PORT mysite.wsgi:application
`,
  python: `
FROM python:3.12-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1
ENV PYTHONUNBUFFERED=1
ENV PORT=3000
WORKDIR /app
COPY . ./
USER 10001:10001
EXPOSE 3000
CMD ["python", "main.py"]
`,
  goRoot: `
# go.mod asks for Go 1.22; the build image is golang:1.23-bookworm.
FROM golang:1.23-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags="-s -w" -o /out/app .

FROM debian:bookworm-slim
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
WORKDIR /app
COPY --from=build /src /app
COPY --from=build /out/app /usr/local/bin/app
ENV PORT=3000
USER 10001:10001
EXPOSE 3000
CMD ["/usr/local/bin/app"]
`,
  goCmd: `
# Warning: go.mod asks for Go 1.25.1, newer than the build image golang:1.23-bookworm; the build downloads that toolchain (GOTOOLCHAIN) or fails without network.
FROM golang:1.23-bookworm AS build
WORKDIR /src
ENV CGO_ENABLED=0
COPY go.mod ./
RUN go mod download
COPY . .
RUN go build -trimpath -ldflags="-s -w" -o /out/app ./cmd/api

FROM debian:bookworm-slim
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
WORKDIR /app
COPY --from=build /src /app
COPY --from=build /out/app /usr/local/bin/app
ENV PORT=3000
USER 10001:10001
EXPOSE 3000
CMD ["/usr/local/bin/app"]
`,
};

describe("written Dockerfiles", () => {
  it.each(Object.entries(EXPECTED_DOCKERFILES) as Array<[FixtureName, string]>)("%s", (name, expected) => {
    expect(found(name).dockerfile.split("\n")).toEqual(lines(expected));
  });

  it("checks every fixture that installs or builds packages", () => {
    const building = (Object.keys(fixtures) as FixtureName[]).filter((name) => found(name).install !== null || found(name).build !== null);
    expect(Object.keys(EXPECTED_DOCKERFILES)).toEqual(expect.arrayContaining(building));
  });
});

describe("package manager", () => {
  const pkg = (extra: Record<string, unknown> = {}) => json({ name: "app", dependencies: { express: "^4.0.0" }, ...extra });

  it.each<[string, Record<string, string>, { name: string; yarn?: string; source: string; lockfile: string | null; install: string; corepack: boolean }]>([
    ["no lockfile: npm install", { "package.json": pkg() }, { name: "npm", source: "default", lockfile: null, install: "npm install", corepack: false }],
    ["package-lock.json: npm ci", { "package.json": pkg(), "package-lock.json": "{}" }, { name: "npm", source: "lockfile", lockfile: "package-lock.json", install: "npm ci", corepack: false }],
    ["npm-shrinkwrap.json: npm ci", { "package.json": pkg(), "npm-shrinkwrap.json": "{}" }, { name: "npm", source: "lockfile", lockfile: "npm-shrinkwrap.json", install: "npm ci", corepack: false }],
    ["pnpm-lock.yaml", { "package.json": pkg(), "pnpm-lock.yaml": "" }, { name: "pnpm", source: "lockfile", lockfile: "pnpm-lock.yaml", install: "pnpm install --frozen-lockfile", corepack: true }],
    ["bun.lockb", { "package.json": pkg(), "bun.lockb": "" }, { name: "bun", source: "lockfile", lockfile: "bun.lockb", install: "bun install --frozen-lockfile", corepack: false }],
    ["bun.lock", { "package.json": pkg(), "bun.lock": "{}" }, { name: "bun", source: "lockfile", lockfile: "bun.lock", install: "bun install --frozen-lockfile", corepack: false }],
    ["yarn.lock v1: classic", { "package.json": pkg(), "yarn.lock": "# yarn lockfile v1\n" }, { name: "yarn", yarn: "classic", source: "lockfile", lockfile: "yarn.lock", install: "yarn install --frozen-lockfile", corepack: true }],
    ["yarn.lock with __metadata: berry", { "package.json": pkg(), "yarn.lock": "__metadata:\n  version: 8\n" }, { name: "yarn", yarn: "berry", source: "lockfile", lockfile: "yarn.lock", install: "yarn install --immutable", corepack: true }],
    ["yarn.lock and .yarnrc.yml: berry", { "package.json": pkg(), "yarn.lock": "", ".yarnrc.yml": "" }, { name: "yarn", yarn: "berry", source: "lockfile", lockfile: "yarn.lock", install: "yarn install --immutable", corepack: true }],
    ["pnpm-lock.yaml wins over package-lock.json", { "package.json": pkg(), "pnpm-lock.yaml": "", "package-lock.json": "{}" }, { name: "pnpm", source: "lockfile", lockfile: "pnpm-lock.yaml", install: "pnpm install --frozen-lockfile", corepack: true }],
    ["bun wins over yarn", { "package.json": pkg(), "bun.lockb": "", "yarn.lock": "" }, { name: "bun", source: "lockfile", lockfile: "bun.lockb", install: "bun install --frozen-lockfile", corepack: false }],
    ["yarn wins over npm", { "package.json": pkg(), "yarn.lock": "", "package-lock.json": "{}" }, { name: "yarn", yarn: "classic", source: "lockfile", lockfile: "yarn.lock", install: "yarn install --frozen-lockfile", corepack: true }],
    ["packageManager pnpm beats a package-lock.json", { "package.json": pkg({ packageManager: "pnpm@9.12.0+sha512.abc" }), "package-lock.json": "{}" }, { name: "pnpm", source: "packageManager", lockfile: null, install: "pnpm install", corepack: true }],
    ["packageManager yarn@1 is classic", { "package.json": pkg({ packageManager: "yarn@1.22.22" }), "yarn.lock": "" }, { name: "yarn", yarn: "classic", source: "packageManager", lockfile: "yarn.lock", install: "yarn install --frozen-lockfile", corepack: true }],
    ["packageManager yarn@4 is berry", { "package.json": pkg({ packageManager: "yarn@4.5.0" }), "yarn.lock": "" }, { name: "yarn", yarn: "berry", source: "packageManager", lockfile: "yarn.lock", install: "yarn install --immutable", corepack: true }],
    ["packageManager npm beats a yarn.lock", { "package.json": pkg({ packageManager: "npm@10.9.0" }), "yarn.lock": "" }, { name: "npm", source: "packageManager", lockfile: null, install: "npm install", corepack: false }],
    ["packageManager bun", { "package.json": pkg({ packageManager: "bun@1.1.30" }), "bun.lock": "" }, { name: "bun", source: "packageManager", lockfile: "bun.lock", install: "bun install --frozen-lockfile", corepack: false }],
    ["an unknown packageManager falls back to the lockfile", { "package.json": pkg({ packageManager: "deno@2" }), "pnpm-lock.yaml": "" }, { name: "pnpm", source: "lockfile", lockfile: "pnpm-lock.yaml", install: "pnpm install --frozen-lockfile", corepack: true }],
  ])("%s", (_title, files, expected) => {
    const tree = sourceTreeFromFiles(files);
    const { name, yarn, source, lockfile, install, corepack } = detectPackageManager(tree, readPackageJson(tree));
    expect({ name, ...(yarn ? { yarn } : {}), source, lockfile, install, corepack }).toEqual(expected);
  });

  it("runs scripts with arguments the way each manager passes them on", () => {
    const run = (files: Record<string, string>) => {
      const tree = sourceTreeFromFiles({ "package.json": pkg(), ...files });
      return detectPackageManager(tree, readPackageJson(tree)).run("build", "--base=/app/");
    };
    expect(run({})).toBe("npm run build -- --base=/app/");
    expect(run({ "pnpm-lock.yaml": "" })).toBe("pnpm run build --base=/app/");
    expect(run({ "yarn.lock": "" })).toBe("yarn run build --base=/app/");
    expect(run({ "bun.lock": "" })).toBe("bun run build --base=/app/");
  });

  it("copies the package manager's config and patches before installing", () => {
    const { dockerfile } = found({
      "package.json": pkg({ packageManager: "yarn@4.5.0", scripts: { start: "node server.js" } }),
      "yarn.lock": "",
      ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-4.5.0.cjs\n",
      ".yarn/releases/yarn-4.5.0.cjs": "",
      ".npmrc": "",
      "patches/express+4.0.0.patch": "",
      "server.js": "",
    });
    expect(dockerfile).toContain("COPY package.json yarn.lock .npmrc .yarnrc.yml ./\nCOPY .yarn/releases ./.yarn/releases\nCOPY patches ./patches\nRUN yarn install --immutable\nCOPY . .\n");
  });

  it("copies the whole repository before installing when install scripts or workspaces need it", () => {
    const { dockerfile } = found({
      "package.json": pkg({ scripts: { start: "node server.js", postinstall: "patch-package" } }),
      "package-lock.json": "{}",
      "server.js": "",
    });
    expect(dockerfile).toContain("WORKDIR /app\nCOPY . .\nRUN npm ci\nRUN npm prune --omit=dev\n");
  });

  it("keeps devDependencies when the start script runs one of them", () => {
    const { dockerfile } = found({
      "package.json": json({ name: "app", scripts: { start: "tsx src/server.ts" }, dependencies: { hono: "^4.0.0" }, devDependencies: { tsx: "^4.0.0" } }),
      "package-lock.json": "{}",
    });
    expect(dockerfile).not.toContain("prune");
    expect(dockerfile).toContain('CMD ["npm", "start"]');
  });
});

describe("base images", () => {
  const mirror: BaseImages = {
    node: "registry.internal/mirror/node:22-slim",
    python: "registry.internal/mirror/python:3.12-slim",
    go: "registry.internal/mirror/golang:1.23",
    runtime: "registry.internal/mirror/debian:bookworm-slim",
    static: "registry.internal/mirror/busybox:1.36",
    bun: "registry.internal/mirror/bun:1",
    rust: "registry.internal/mirror/rust:1-slim",
    deno: "registry.internal/mirror/deno:2",
  };

  it.each(Object.keys(fixtures) as FixtureName[])("a private mirror changes every FROM line (%s)", (name) => {
    const from = found(name, mirror).dockerfile.split("\n").filter((line) => line.startsWith("FROM "));
    expect(from.length).toBeGreaterThan(0);
    for (const line of from) expect(line).toMatch(/^FROM registry\.internal\/mirror\/\S+( AS build)?$/);
    expect(found(name).dockerfile.split("\n").filter((line) => line.startsWith("FROM ")).every((line) => !line.includes("registry.internal"))).toBe(true);
  });

  it("maps each logical image to its stages", () => {
    const from = (name: FixtureName) => found(name, mirror).dockerfile.split("\n").filter((line) => line.startsWith("FROM "));
    expect(from("goRoot")).toEqual([`FROM ${mirror.go} AS build`, `FROM ${mirror.runtime}`]);
    expect(from("django")).toEqual([`FROM ${mirror.python} AS build`, `FROM ${mirror.python}`]);
    expect(from("hono")).toEqual([`FROM ${mirror.bun} AS build`, `FROM ${mirror.bun}`]);
    expect(from("viteReact")).toEqual([`FROM ${mirror.node} AS build`, `FROM ${mirror.static}`]);
    expect(from("plainHtml")).toEqual([`FROM ${mirror.static}`]);
  });

  it("keeps the defaults for images the operator does not map, and ignores blank ones", () => {
    const { dockerfile } = found("goRoot", { go: "mirror/golang:1.23", runtime: " " });
    expect(dockerfile).toContain("FROM mirror/golang:1.23 AS build\n");
    expect(dockerfile).toContain(`FROM ${DEFAULT_BASE_IMAGES.runtime}\n`);
  });
});

describe("detection order", () => {
  it("a Go module beats a package.json", () => {
    expect(found({ ...fixtures.goRoot, ...fixtures.express }).name).toBe("Go");
  });

  it("a Python app beats a package.json and static files", () => {
    expect(found({ ...fixtures.flask, ...fixtures.express, "index.html": "<h1>hi</h1>" }).name).toBe("Flask");
  });

  it("a Node framework beats the root index.html it carries", () => {
    expect(found("viteReact").name).toBe("Vite (React)");
  });

  it("a front end whose start script runs its own server is that server, built first", () => {
    const auto = found({
      ...fixtures.viteReact,
      "package.json": json({
        name: "ssr",
        scripts: { build: "vite build", start: "node server.js" },
        dependencies: { express: "^4.21.0", react: "^19.0.0" },
        devDependencies: { vite: "^6.0.0" },
      }),
      "server.js": "",
    });
    expect(auto).toMatchObject({ name: "Express", install: "npm ci", build: "npm run build", start: "node server.js" });
  });

  it("a package.json that starts nothing gives way to static files", () => {
    const auto = found({ "package.json": json({ name: "site", devDependencies: { prettier: "^3.0.0" } }), "index.html": "<h1>hi</h1>" });
    expect(auto).toMatchObject({ name: "Static site", output: "." });
  });

  it("public/index.html beats a root index.html, which beats a public/ folder without one", () => {
    expect(found({ "index.html": "", "public/index.html": "" }).output).toBe("public");
    expect(found({ "index.html": "", "public/logo.png": "" }).output).toBe(".");
    expect(found({ "public/logo.png": "" }).output).toBe("public");
  });
});

describe("found: false", () => {
  const reason = (files: Record<string, string>) => {
    const { auto, contextFiles } = detectAutoBuild(sourceTreeFromFiles(files));
    expect(contextFiles).toEqual({});
    if (auto.found) throw new Error(`expected nothing, found ${auto.name}`);
    return auto.reason;
  };

  it("says what was looked for when the repository has none of it", () => {
    expect(reason({ "README.md": "# Notes\n", "notes/todo.txt": "" })).toBe(
      "No package.json, requirements.txt, pyproject.toml, go.mod, Cargo.toml, deno.json or index.html found, so Reposite cannot tell how to build this repository. Add a Dockerfile, or choose the bare Linux box.",
    );
    expect(reason({})).toBe(NOTHING_FOUND_REASON);
  });

  it("names what a package.json lacks", () => {
    expect(reason({ "package.json": json({ name: "lib", main: "missing.js", devDependencies: { typescript: "^5.0.0" } }) })).toBe(
      "package.json has no start script, no main and no index.js or server.js, and no front-end framework Reposite knows, so Reposite cannot tell how to start this app. Add a start script (for example `node server.js`), or add a Dockerfile.",
    );
    expect(reason({ "package.json": "{ not json" })).toBe(
      "package.json is not valid JSON, so Reposite cannot read how to build this app. Fix package.json, or add a Dockerfile.",
    );
  });

  it("names what a Go module or Python project lacks", () => {
    expect(reason({ "go.mod": "module example.com/lib\n\ngo 1.22\n", "lib.go": "package lib\n" })).toBe(
      "This Go module has no main package (a main.go at the root or in cmd/<name>/), so Reposite cannot tell what to build. Add one, or add a Dockerfile.",
    );
    expect(reason({ "requirements.txt": "requests\n", "tool/run.py": "" })).toBe(
      "This Python project has no main.py, app.py or server.py, and no Django, Flask or FastAPI app Reposite could find, so Reposite cannot tell what to start. Add a main.py, or add a Dockerfile.",
    );
  });

  it("names a framework built for another host", () => {
    expect(
      reason({
        "package.json": json({ name: "kit", scripts: { build: "vite build" }, devDependencies: { "@sveltejs/kit": "^2.0.0", "@sveltejs/adapter-vercel": "^5.0.0" } }),
      }),
    ).toBe(
      "This SvelteKit app builds with @sveltejs/adapter-vercel, for that host only. Use @sveltejs/adapter-node (a server) or @sveltejs/adapter-static (a static site), or add a Dockerfile.",
    );
    expect(
      reason({ "package.json": json({ name: "site", scripts: { build: "astro build" }, dependencies: { astro: "^5.0.0", "@astrojs/vercel": "^8.0.0" } }) }),
    ).toBe("This Astro site renders on demand with @astrojs/vercel. Add @astrojs/node to run it as a server, or build it as a static site, or add a Dockerfile.");
  });
});

describe("the /app/ base path", () => {
  it("wraps a JavaScript next.config of a static export so basePath is /app", () => {
    const plan = detectAutoBuild(fixture("nextExport"));
    expect(plan.contextFiles[".reposite/next.config.mjs"]).toBe(
      [
        "// Written by Reposite: the app is served under /app/, so the export needs that base path.",
        'import userConfig from "./next.config.user.mjs";',
        "",
        "export default async function config(phase, context) {",
        '  const base = typeof userConfig === "function" ? await userConfig(phase, context) : await userConfig;',
        '  return { ...base, basePath: "/app" };',
        "}",
        "",
      ].join("\n"),
    );
    expect(warningsOf(plan)).toEqual([]);
  });

  it("leaves a static export alone whose next.config already sets basePath /app", () => {
    const plan = detectAutoBuild(sourceTreeFromFiles({ ...fixtures.nextExport, "next.config.mjs": 'export default { output: "export", basePath: "/app" };\n' }));
    expect(Object.keys(plan.contextFiles)).toEqual([".reposite/serve.mjs"]);
    expect(plan.auto.found && plan.auto.dockerfile).not.toContain("next.config.user");
  });

  it("warns, in the answer and the Dockerfile, when the base path cannot be set", () => {
    const tsExport = { ...fixtures.nextExport, "next.config.ts": 'export default { output: "export" };\n' } as Record<string, string>;
    delete tsExport["next.config.mjs"];
    const plan = detectAutoBuild(sourceTreeFromFiles(tsExport));
    const warning =
      'Next.js takes its base path only from next.config; add `basePath: "/app"` to next.config.ts, or the exported pages load their scripts from the site root instead of /app/.';
    expect(warningsOf(plan)).toEqual([warning]);
    expect(plan.auto.found && plan.auto.dockerfile.split("\n")[0]).toBe(`# Warning: ${warning}`);

    const chained = detectAutoBuild(
      sourceTreeFromFiles({ ...fixtures.viteReact, "package.json": json({ scripts: { build: "vite build && node scripts/sitemap.js" }, devDependencies: { vite: "^6.0.0" } }) }),
    );
    expect(chained.auto).toMatchObject({ found: true, build: "npm run build" });
    expect(warningsOf(chained)).toEqual([
      "The build script does not end with `vite build`, so Reposite cannot pass `--base=/app/` to it; set the base path to /app/ in the vite config, or assets will load from the site root instead of /app/.",
    ]);
  });

  it("asks SvelteKit static sites to read BASE_PATH unless their config does", () => {
    expect(warningsOf(detectAutoBuild(fixture("svelteKitStatic")))).toEqual([]);
    const plain = detectAutoBuild(sourceTreeFromFiles({ ...fixtures.svelteKitStatic, "svelte.config.js": 'import adapter from "@sveltejs/adapter-static";\nexport default { kit: { adapter: adapter() } };\n' }));
    expect(warningsOf(plain)).toEqual([
      'SvelteKit takes its base path from svelte.config.js: set `kit.paths.base` to "/app" (for example `base: process.env.BASE_PATH ?? ""`; Reposite builds with BASE_PATH=/app).',
    ]);
  });

  it("warns that server-rendered frameworks write root addresses", () => {
    expect(warningsOf(detectAutoBuild(fixture("nextStandalone")))[0]).toMatch(/^Next\.js writes addresses from the site root \(\/_next\/…\)/);
    expect(warningsOf(detectAutoBuild(fixture("express")))).toEqual([]);
  });

  it("warns about root-relative links in a plain static site", () => {
    const plan = detectAutoBuild(sourceTreeFromFiles({ "index.html": '<link href="/css/site.css" rel="stylesheet"><a href="//cdn.example.com/x">x</a>' }));
    expect(warningsOf(plan)).toEqual([
      'index.html links to "/css/site.css" from the site root; the app is served under /app/, so write it relative ("css/site.css").',
    ]);
    expect(warningsOf(detectAutoBuild(fixture("plainHtml")))).toEqual([]);
  });
});

describe("servers listen on 0.0.0.0:$PORT", () => {
  it("warns about Fastify, which listens on localhost by default", () => {
    expect(warningsOf(detectAutoBuild(fixture("fastify")))).toEqual([
      'Fastify listens on 127.0.0.1 unless told otherwise, which a container does not expose: call `listen({ host: "0.0.0.0", port: Number(process.env.PORT) })`.',
    ]);
  });

  it("uses the shell form only where $PORT must expand", () => {
    for (const name of Object.keys(fixtures) as FixtureName[]) {
      const cmd = found(name).dockerfile.split("\n").find((line) => line.startsWith("CMD "));
      if (cmd?.includes("$PORT")) expect(cmd).toMatch(/^CMD (?!\[)/);
      else expect(cmd).toMatch(/^CMD \[/);
    }
  });

  it("sets PORT=3000 as a default, exposes 3000 and never runs as root", () => {
    for (const name of Object.keys(fixtures) as FixtureName[]) {
      const dockerfile = found(name).dockerfile;
      const last = dockerfile.slice(dockerfile.lastIndexOf("FROM "));
      expect(last).toContain("ENV PORT=3000\n");
      expect(last).toContain("EXPOSE 3000\n");
      expect(last).toMatch(/\nUSER (node|bun|10001:10001)\n/);
    }
  });
});

describe("DockerfileWriter", () => {
  it("writes tidy text: stages separated by a blank line, exec-form CMD, exec-ed shell CMD", () => {
    const text = new DockerfileWriter()
      .comment("two\nlines")
      .from("a:1", "build")
      .env({ A: "1", B: "two words" })
      .copy(["x", "y"], "./", { from: "build", chown: "node:node" })
      .from("b:2")
      .cmdShell("migrate && serve --port $PORT")
      .toString();
    expect(text).toBe(
      '# two\n# lines\nFROM a:1 AS build\nENV A=1\nENV B="two words"\nCOPY --from=build --chown=node:node x y ./\n\nFROM b:2\nCMD migrate && exec serve --port $PORT\n',
    );
    expect(new DockerfileWriter().cmd(["node", "server.js"]).toString()).toBe('CMD ["node", "server.js"]\n');
  });
});
