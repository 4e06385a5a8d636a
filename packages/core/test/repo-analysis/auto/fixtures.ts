import { sourceTreeFromFiles, type SourceTree } from "../../../src/repo-analysis/source-tree.js";

/** One small repository per detected framework: just the files detection reads. */

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const lock = "{}\n";

export const fixtures = {
  // ── static files ──────────────────────────────────────────────────────────────────────────
  plainHtml: {
    "index.html": '<!doctype html><link rel="stylesheet" href="style.css"><h1>Hello</h1>\n',
    "style.css": "h1 { color: teal }\n",
    "README.md": "# A page\n",
  },
  publicFolder: {
    "public/index.html": "<!doctype html><h1>Hello</h1>\n",
    "public/assets/app.js": "console.log('hi')\n",
  },
  staticfile: {
    Staticfile: "root: site\n",
    "site/index.html": "<!doctype html><h1>Hello</h1>\n",
  },

  // ── Node front ends that build static files ───────────────────────────────────────────────
  viteReact: {
    "package.json": json({
      name: "vite-react",
      private: true,
      type: "module",
      scripts: { dev: "vite", build: "tsc -b && vite build", preview: "vite preview" },
      dependencies: { react: "^19.0.0", "react-dom": "^19.0.0" },
      devDependencies: { "@vitejs/plugin-react": "^4.3.0", typescript: "~5.6.0", vite: "^6.0.0" },
    }),
    "package-lock.json": lock,
    "vite.config.ts": 'import { defineConfig } from "vite";\nimport react from "@vitejs/plugin-react";\nexport default defineConfig({ plugins: [react()] });\n',
    "index.html": '<!doctype html><div id="root"></div><script type="module" src="/src/main.tsx"></script>\n',
    "src/main.tsx": "export {};\n",
  },
  viteVue: {
    "package.json": json({
      name: "vite-vue",
      packageManager: "pnpm@9.12.0",
      scripts: { dev: "vite", build: "vite build", start: "vite preview" },
      dependencies: { vue: "^3.5.0" },
      devDependencies: { "@vitejs/plugin-vue": "^5.0.0", vite: "^6.0.0" },
    }),
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "vite.config.js": 'export default { build: { outDir: "build/client" } };\n',
    "index.html": '<div id="app"></div>\n',
  },
  viteSvelte: {
    "package.json": json({
      name: "vite-svelte",
      scripts: { dev: "vite", build: "vite build" },
      devDependencies: { "@sveltejs/vite-plugin-svelte": "^5.0.0", svelte: "^5.0.0", vite: "^6.0.0" },
    }),
    "yarn.lock": "# yarn lockfile v1\n",
    "index.html": '<div id="app"></div>\n',
  },
  astroStatic: {
    "package.json": json({
      name: "astro-site",
      type: "module",
      scripts: { dev: "astro dev", build: "astro build", preview: "astro preview" },
      dependencies: { astro: "^5.0.0" },
    }),
    "package-lock.json": lock,
    "astro.config.mjs": 'import { defineConfig } from "astro/config";\nexport default defineConfig({});\n',
    "src/pages/index.astro": "<h1>Hi</h1>\n",
  },
  nextExport: {
    "package.json": json({
      name: "next-export",
      scripts: { dev: "next dev", build: "next build", start: "next start" },
      dependencies: { next: "15.1.0", react: "^19.0.0", "react-dom": "^19.0.0" },
    }),
    "package-lock.json": lock,
    "next.config.mjs": '/** @type {import("next").NextConfig} */\nconst nextConfig = { output: "export" };\nexport default nextConfig;\n',
    "app/page.tsx": "export default function Page() { return null; }\n",
  },
  nuxtGenerate: {
    "package.json": json({
      name: "nuxt-static",
      scripts: { build: "nuxt generate", dev: "nuxt dev" },
      dependencies: { nuxt: "^3.14.0", vue: "^3.5.0" },
    }),
    "package-lock.json": lock,
    "nuxt.config.ts": "export default defineNuxtConfig({});\n",
  },
  svelteKitStatic: {
    "package.json": json({
      name: "kit-static",
      type: "module",
      scripts: { dev: "vite dev", build: "vite build" },
      devDependencies: { "@sveltejs/adapter-static": "^3.0.0", "@sveltejs/kit": "^2.0.0", svelte: "^5.0.0", vite: "^6.0.0" },
    }),
    "package-lock.json": lock,
    "svelte.config.js":
      'import adapter from "@sveltejs/adapter-static";\nexport default { kit: { adapter: adapter({ fallback: "index.html" }), paths: { base: process.env.BASE_PATH ?? "" } } };\n',
  },
  createReactApp: {
    "package.json": json({
      name: "cra",
      scripts: { start: "react-scripts start", build: "react-scripts build", test: "react-scripts test" },
      dependencies: { react: "^18.3.0", "react-dom": "^18.3.0", "react-scripts": "5.0.1" },
    }),
    "package-lock.json": lock,
    "public/index.html": '<div id="root"></div>\n',
    "src/index.js": "\n",
  },
  angular: {
    "package.json": json({
      name: "ng-app",
      scripts: { ng: "ng", start: "ng serve", build: "ng build" },
      dependencies: { "@angular/core": "^19.0.0", "@angular/router": "^19.0.0" },
      devDependencies: { "@angular/cli": "^19.0.0", "@angular/build": "^19.0.0" },
    }),
    "package-lock.json": lock,
    "angular.json": json({
      projects: { "ng-app": { projectType: "application", architect: { build: { builder: "@angular/build:application", options: { outputPath: "dist/ng-app" } } } } },
    }),
  },

  // ── Node frameworks with a server ─────────────────────────────────────────────────────────
  nextStandalone: {
    "package.json": json({
      name: "next-app",
      scripts: { dev: "next dev", build: "next build", start: "next start" },
      dependencies: { next: "15.1.0", react: "^19.0.0", "react-dom": "^19.0.0" },
    }),
    "package-lock.json": lock,
    "next.config.ts": 'import type { NextConfig } from "next";\nconst config: NextConfig = { output: "standalone" };\nexport default config;\n',
    "public/favicon.ico": "",
    "app/page.tsx": "export default function Page() { return null; }\n",
  },
  nextServer: {
    "package.json": json({
      name: "next-app",
      scripts: { dev: "next dev", build: "next build", start: "next start" },
      dependencies: { next: "14.2.0", react: "^18.3.0", "react-dom": "^18.3.0" },
    }),
    "yarn.lock": "# yarn lockfile v1\n",
    "pages/index.js": "export default function Home() { return null; }\n",
  },
  nuxt: {
    "package.json": json({
      name: "nuxt-app",
      type: "module",
      scripts: { build: "nuxt build", dev: "nuxt dev", preview: "nuxt preview" },
      dependencies: { nuxt: "^3.14.0", vue: "^3.5.0" },
    }),
    "package-lock.json": lock,
    "nuxt.config.ts": "export default defineNuxtConfig({});\n",
  },
  svelteKitNode: {
    "package.json": json({
      name: "kit-app",
      type: "module",
      scripts: { dev: "vite dev", build: "vite build", preview: "vite preview" },
      devDependencies: { "@sveltejs/adapter-node": "^5.0.0", "@sveltejs/kit": "^2.0.0", svelte: "^5.0.0", vite: "^6.0.0" },
    }),
    "package-lock.json": lock,
    "svelte.config.js": 'import adapter from "@sveltejs/adapter-node";\nexport default { kit: { adapter: adapter() } };\n',
  },
  astroServer: {
    "package.json": json({
      name: "astro-ssr",
      scripts: { build: "astro build" },
      dependencies: { astro: "^5.0.0", "@astrojs/node": "^9.0.0" },
    }),
    "package-lock.json": lock,
    "astro.config.mjs": 'import node from "@astrojs/node";\nexport default { output: "server", adapter: node({ mode: "standalone" }) };\n',
  },

  // ── Node servers ──────────────────────────────────────────────────────────────────────────
  express: {
    "package.json": json({ name: "api", scripts: { start: "node server.js" }, dependencies: { express: "^4.21.0" }, devDependencies: { eslint: "^9.0.0" } }),
    "package-lock.json": lock,
    "server.js": 'const app = require("express")();\napp.listen(process.env.PORT || 3000);\n',
  },
  fastify: {
    "package.json": json({ name: "api", main: "src/index.js", dependencies: { fastify: "^5.0.0" } }),
    "package-lock.json": lock,
    "src/index.js": 'const app = require("fastify")();\napp.listen({ port: Number(process.env.PORT) });\n',
  },
  koa: {
    "package.json": json({ name: "api", packageManager: "yarn@4.5.0", scripts: { start: "node app.js" }, dependencies: { koa: "^2.15.0" } }),
    "yarn.lock": "__metadata:\n  version: 8\n",
    ".yarnrc.yml": "nodeLinker: node-modules\n",
    "app.js": "\n",
  },
  hono: {
    "package.json": json({ name: "api", scripts: { dev: "bun run --hot src/index.ts", start: "bun run src/index.ts" }, dependencies: { hono: "^4.6.0" } }),
    "bun.lock": "{}\n",
    "src/index.ts": "export default {};\n",
  },
  nestjs: {
    "package.json": json({
      name: "nest-api",
      scripts: { build: "nest build", start: "nest start", "start:prod": "node dist/main" },
      dependencies: { "@nestjs/core": "^10.0.0", "@nestjs/common": "^10.0.0" },
      devDependencies: { "@nestjs/cli": "^10.0.0", typescript: "^5.0.0" },
    }),
    "package-lock.json": lock,
    "src/main.ts": "\n",
  },
  nodeStartScript: {
    "package.json": json({ name: "tiny", scripts: { start: "node server.js" } }),
    "server.js": "require('node:http').createServer((req, res) => res.end('hi')).listen(Number(process.env.PORT) || 3000, '0.0.0.0');\n",
  },
  nodeIndexJs: {
    "package.json": json({ name: "tiny" }),
    "index.js": "\n",
  },

  // ── Python ────────────────────────────────────────────────────────────────────────────────
  flask: {
    "requirements.txt": "Flask==3.1.0\ngunicorn==23.0.0\n",
    "app.py": "from flask import Flask\n\napp = Flask(__name__)\n",
  },
  flaskFactory: {
    "requirements.txt": "flask>=3\n",
    "myapp/__init__.py": "from flask import Flask\n\ndef create_app():\n    return Flask(__name__)\n",
    "myapp/views.py": "\n",
  },
  fastapi: {
    "pyproject.toml": '[project]\nname = "api"\nversion = "0.1.0"\ndependencies = ["fastapi>=0.115"]\n',
    "uv.lock": "version = 1\n",
    "app/__init__.py": "",
    "app/main.py": "from fastapi import FastAPI\n\napp = FastAPI()\n",
  },
  django: {
    "requirements.txt": "Django>=5.1\ngunicorn\n",
    "manage.py": "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')\n",
    "mysite/settings.py": "WSGI_APPLICATION = 'mysite.wsgi.application'\nSTATIC_ROOT = BASE_DIR / 'staticfiles'\n",
    "mysite/wsgi.py": "\n",
  },
  python: {
    "main.py": "print('hello')\n",
  },

  // ── Go ────────────────────────────────────────────────────────────────────────────────────
  goRoot: {
    "go.mod": "module example.com/hello\n\ngo 1.22\n",
    "go.sum": "\n",
    "main.go": "package main\n\nfunc main() {}\n",
  },
  goCmd: {
    "go.mod": "module example.com/svc\n\ngo 1.25.1\n",
    "cmd/worker/main.go": "package main\n\nfunc main() {}\n",
    "cmd/api/main.go": "package main\n\nfunc main() {}\n",
    "internal/store/store.go": "package store\n",
  },
} satisfies Record<string, Record<string, string>>;

export type FixtureName = keyof typeof fixtures;

export function fixture(name: FixtureName): SourceTree {
  return sourceTreeFromFiles(fixtures[name]);
}
