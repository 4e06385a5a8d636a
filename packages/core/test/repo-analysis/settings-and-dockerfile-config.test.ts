import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeDockerfile } from "../../src/repo-analysis/dockerfile-analysis.js";
import { readPythonVersion } from "../../src/repo-analysis/formats/python-version.js";
import { findSetupNotes } from "../../src/repo-analysis/setup-notes.js";
import { findSetupVars } from "../../src/repo-analysis/setup-vars.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

const appUrl = "https://acme.reposite.test/app/";
const lines = (...text: string[]) => text.join("\n");

/** A folder of real files (see real-files/ORIGIN.md) as a source tree. */
function realTree(folder: string, extra: Record<string, string> = {}) {
  const root = fileURLToPath(new URL(`./real-files/${folder}`, import.meta.url));
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, "utf8");
    }
  };
  walk(root);
  return sourceTreeFromFiles({ ...files, ...extra });
}

const required = (vars: ReturnType<typeof findSetupVars>) => vars.filter((v) => v.required).map((v) => v.name);
const optional = (vars: ReturnType<typeof findSetupVars>) => vars.filter((v) => !v.required).map((v) => v.name);

describe("settings from real config code", () => {
  it("pydantic BaseSettings (fastapi/full-stack-fastapi-template): fields without a default are required, SMTP and Sentry are not", () => {
    const vars = findSetupVars(realTree("full-stack-fastapi-template"), { appUrl });
    expect(required(vars).sort()).toEqual(["FIRST_SUPERUSER", "FIRST_SUPERUSER_PASSWORD", "POSTGRES_SERVER", "POSTGRES_USER", "PROJECT_NAME"]);
    expect(optional(vars)).toEqual(expect.arrayContaining(["SECRET_KEY", "SENTRY_DSN", "SMTP_HOST", "SMTP_PASSWORD", "OPENAI_API_KEY", "POSTGRES_PORT"]));
    expect(vars.find((v) => v.name === "POSTGRES_PORT")).toMatchObject({ input: "auto", value: "5432" });
  });

  it("t3-env createEnv (t3-oss/create-t3-app): schema entries decide, and next-auth v4 needs its secret and URL", () => {
    const vars = findSetupVars(
      realTree("create-t3-app", { "package.json": JSON.stringify({ dependencies: { next: "^14.0.0", "next-auth": "^4.24.5" } }) }),
      { appUrl }
    );
    expect(required(vars)).toEqual(
      expect.arrayContaining(["DATABASE_URL", "DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET", "NEXTAUTH_SECRET", "NEXTAUTH_URL"])
    );
    expect(vars.find((v) => v.name === "NEXTAUTH_URL")).toMatchObject({ input: "auto", value: "https://acme.reposite.test/app" });
    expect(vars.map((v) => v.name)).not.toContain("VERCEL_URL");
    expect(vars.find((v) => v.name === "SKIP_ENV_VALIDATION")?.required).toBe(false);
  });
});

describe("settings from what the code reads", () => {
  it("a variable the program exits without is required; one with a default or a test is not", () => {
    const vars = findSetupVars(
      sourceTreeFromFiles({
        "index.js": lines(
          "const token = process.env.BOT_TOKEN;",
          "if (!token) {",
          '  console.error("BOT_TOKEN is missing");',
          "  process.exit(1);",
          "}",
          'const prefix = process.env.COMMAND_PREFIX ?? "!";',
          'if (process.env.VERBOSE === "1") console.log("verbose");',
          "const port = process.env.PORT || 3000;",
          "Sentry.init({ dsn: process.env.SENTRY_DSN });"
        ),
        "main.go": lines(
          "func main() {",
          '  key := os.Getenv("API_KEY")',
          '  if key == "" {',
          '    log.Fatal("API_KEY is required")',
          "  }",
          '  addr := os.Getenv("LISTEN_ADDR")',
          '  if addr == "" {',
          '    addr = ":8080"',
          "  }",
          "}"
        ),
        "app.py": lines('import os', 'DB = os.environ["DATABASE_URL"]', 'DEBUG = os.getenv("DEBUG", "0") == "1"', 'NAME = os.environ.get("SITE_NAME", "Acme")'),
        "deno.ts": 'const kv = Deno.env.get("KV_PATH") ?? "./data.kv";',
      }),
      { appUrl }
    );
    expect(required(vars).sort()).toEqual(["API_KEY", "BOT_TOKEN", "DATABASE_URL"]);
    expect(optional(vars).sort()).toEqual(["COMMAND_PREFIX", "DEBUG", "KV_PATH", "LISTEN_ADDR", "SENTRY_DSN", "SITE_NAME", "VERBOSE"]);
    expect(vars.find((v) => v.name === "SITE_NAME")).toMatchObject({ input: "auto", value: "Acme" });
  });

  it("Django's SECRET_KEY read without a default is required (Django will not start without it)", () => {
    const vars = findSetupVars(
      sourceTreeFromFiles({
        "mysite/settings.py": lines("import os", 'SECRET_KEY = os.environ.get("SECRET_KEY")', "INSTALLED_APPS = []", 'ALLOWED_HOSTS = os.environ.get("ALLOWED_HOSTS", "localhost").split(",")'),
      }),
      { appUrl }
    );
    expect(vars.find((v) => v.name === "SECRET_KEY")).toMatchObject({ required: true, input: "generate" });
    expect(vars.find((v) => v.name === "ALLOWED_HOSTS")).toMatchObject({ required: false, input: "auto", value: "acme.reposite.test" });
  });

  it("next-auth v5 needs AUTH_SECRET and AUTH_TRUST_HOST even when the code never names them", () => {
    const vars = findSetupVars(sourceTreeFromFiles({ "package.json": JSON.stringify({ dependencies: { "next-auth": "5.0.0-beta.25" } }) }), { appUrl });
    expect(vars).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "AUTH_SECRET", required: true, input: "generate" }),
        expect.objectContaining({ name: "AUTH_TRUST_HOST", required: true, input: "auto", value: "true" }),
      ])
    );
  });

  it("the README calling payment keys optional, a group comment, and names no code reads leave settings optional", () => {
    const vars = findSetupVars(
      sourceTreeFromFiles({
        "server.js": lines("const db = connect(process.env.DATABASE_URL);", "const stripe = process.env.STRIPE_SECRET_KEY && new Stripe(process.env.STRIPE_SECRET_KEY);", "const s3 = process.env.S3_BUCKET;"),
        ".env.example": lines(
          "DATABASE_URL=",
          "",
          "# Optional: file uploads",
          "S3_BUCKET=",
          "S3_REGION=",
          "",
          "STRIPE_SECRET_KEY=",
          "LEGACY_API_URL="
        ),
        "README.md": lines("# Shop", "", "## Payments (optional)", "", "Set `STRIPE_SECRET_KEY` to take payments."),
      }),
      { appUrl }
    );
    expect(required(vars)).toEqual(["DATABASE_URL"]);
    expect(optional(vars).sort()).toEqual(["LEGACY_API_URL", "S3_BUCKET", "S3_REGION", "STRIPE_SECRET_KEY"]);
  });
});

describe("Dockerfile reading that follows the final stage's own config", () => {
  const nginxSite = {
    Dockerfile: lines(
      "# syntax=docker/dockerfile:1.7",
      "FROM --platform=$BUILDPLATFORM node:22 AS build",
      "WORKDIR /app",
      "COPY package*.json ./",
      "RUN --mount=type=cache,target=/root/.npm npm ci",
      "COPY . .",
      "RUN npm run build",
      "FROM nginx:1.27-alpine",
      "COPY nginx.conf /etc/nginx/conf.d/default.conf",
      "COPY --from=build /app/dist /usr/share/nginx/html",
      "EXPOSE 8080"
    ),
    "nginx.conf": lines("server {", "    listen 8080;", "    listen [::]:8080;", "    root /usr/share/nginx/html;", "}"),
  };

  it("an nginx listen in a copied config wins over the nginx base image's port 80", () => {
    const tree = sourceTreeFromFiles(nginxSite);
    expect(analyzeDockerfile(nginxSite.Dockerfile, { tree })).toEqual({
      expose: [8080],
      command: "nginx -g 'daemon off;'",
      kind: "web",
      warnings: [],
    });
    const notes = findSetupNotes(tree, { dockerfile: nginxSite.Dockerfile });
    expect(notes.find((note) => note.kind === "port")?.message).toContain("port 8080");
  });

  it("a template that listens on ${PORT} makes a web server with the port from the setting", () => {
    const files = {
      Dockerfile: lines("FROM nginx", "COPY default.conf.template /etc/nginx/templates/", "COPY site /usr/share/nginx/html"),
      "default.conf.template": "server { listen ${PORT}; }",
      "site/index.html": "<h1>hi</h1>",
    };
    expect(analyzeDockerfile(files.Dockerfile, { tree: sourceTreeFromFiles(files) })).toEqual({
      expose: [],
      command: "nginx -g 'daemon off;'",
      kind: "web",
      warnings: [],
    });
  });

  it("a program that reads PORT is a server though nothing in the Dockerfile says so", () => {
    const files = {
      Dockerfile: lines("FROM node:22-slim", "WORKDIR /app", "COPY . .", 'CMD ["node", "index.js"]'),
      "index.js": "require('http').createServer((q, s) => s.end('ok')).listen(process.env.PORT);",
    };
    expect(analyzeDockerfile(files.Dockerfile).kind).toBe("cli");
    expect(analyzeDockerfile(files.Dockerfile, { tree: sourceTreeFromFiles(files) })).toMatchObject({ kind: "web", warnings: [] });
    expect(findSetupNotes(sourceTreeFromFiles(files), { dockerfile: files.Dockerfile }).map((note) => note.kind)).not.toContain("port");
  });

  it("a server whose command and port come from its base image is a server", () => {
    expect(analyzeDockerfile(lines("FROM ghost:5-alpine", "COPY content /var/lib/ghost/content"))).toEqual({
      expose: [2368],
      command: "node current/index.js",
      kind: "web",
      warnings: [],
    });
  });

  it("an ENTRYPOINT wrapper with no CMD is flagged, and the note says what it means", () => {
    const files = {
      Dockerfile: lines("FROM node:22-slim", "WORKDIR /app", "COPY . .", "EXPOSE 3000", 'ENTRYPOINT ["./docker-entrypoint.sh"]'),
      "docker-entrypoint.sh": lines("#!/bin/sh", "set -e", "npx prisma migrate deploy", 'exec "$@"'),
      "server.js": "",
    };
    const tree = sourceTreeFromFiles(files);
    expect(analyzeDockerfile(files.Dockerfile, { tree }).warnings).toEqual(["entrypoint-without-cmd"]);
    expect(findSetupNotes(tree, { dockerfile: files.Dockerfile }).find((note) => note.kind === "entrypoint")?.message).toMatch(
      /drops the base image's CMD.*exec "\$@".*Add a CMD/
    );
    // The same entrypoint with a CMD, or a program that is the server itself, is fine.
    expect(analyzeDockerfile(`${files.Dockerfile}\nCMD ["node", "server.js"]`, { tree }).warnings).toEqual([]);
    expect(analyzeDockerfile(lines("FROM node:22-slim", 'ENTRYPOINT ["node", "server.js"]'), { tree }).warnings).toEqual([]);
    expect(analyzeDockerfile(lines("FROM node:22-slim", 'ENTRYPOINT ["tini", "--"]')).warnings).toContain("entrypoint-without-cmd");
  });
});

describe(".python-version", () => {
  it("skips comment lines and takes the first version", () => {
    expect(readPythonVersion("# Managed by uv\n3.12\n")).toBe("3.12");
    expect(readPythonVersion("\n  # pinned\n3.11.9 # for torch\n3.10\n")).toBe("3.11.9");
    expect(readPythonVersion("python-3.12.4\n")).toBe("3.12.4");
    expect(readPythonVersion("# nothing\n")).toBeNull();
  });
});
