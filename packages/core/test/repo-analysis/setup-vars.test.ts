import { describe, expect, it } from "vitest";
import { findSetupVars, isPlaceholder, looksLikeCredential } from "../../src/repo-analysis/setup-vars.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";
import type { SetupVar } from "../../src/repo-analysis/repo-check.js";

const context = { appUrl: "https://demo.sites.example/app/" };
const vars = (files: Record<string, string>) => findSetupVars(sourceTreeFromFiles(files), context);
const lines = (...text: string[]) => text.join("\n");

describe("findSetupVars: example env files", () => {
  it("reads descriptions, requiredness and harmless defaults from .env.example", () => {
    const result = vars({
      ".env.example": lines(
        "# ---------- App ----------",
        "",
        "# Public address of the app",
        "APP_URL=http://localhost:3000",
        "PORT=8080",
        "NODE_ENV=development",
        "",
        "# Name shown in the header",
        "# (two comment lines are joined)",
        'APP_NAME="Acme Notes"',
        "LOG_LEVEL=info # debug, info, warn",
        "",
        "# Signs session cookies",
        "SESSION_SECRET=change-me",
        "",
        "# Optional: error reports",
        "SENTRY_DSN=",
        "",
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnop",
        "COMPANY_ADDRESS=",
        "# MAX_UPLOAD_MB=25"
      ),
    });
    expect(result).toEqual<SetupVar[]>([
      { name: "COMPANY_ADDRESS", required: true, description: "", input: "secret", value: "" },
      { name: "OPENAI_API_KEY", required: true, description: "", input: "secret", value: "" },
      { name: "SESSION_SECRET", required: true, description: "Signs session cookies", input: "generate", value: "" },
      {
        name: "APP_NAME",
        required: false,
        description: "Name shown in the header (two comment lines are joined)",
        input: "auto",
        value: "Acme Notes",
      },
      {
        name: "APP_URL",
        required: false,
        description: "Public address of the app",
        input: "auto",
        value: "https://demo.sites.example/app",
      },
      { name: "LOG_LEVEL", required: false, description: "debug, info, warn", input: "auto", value: "info" },
      { name: "MAX_UPLOAD_MB", required: false, description: "", input: "auto", value: "25" },
      { name: "NODE_ENV", required: false, description: "", input: "auto", value: "production" },
      { name: "SENTRY_DSN", required: false, description: "Optional: error reports", input: "secret", value: "" },
    ]);
  });

  it("reads .env.sample, .env.template, .env.dist and example.env alike", () => {
    for (const file of [".env.sample", ".env.template", ".env.dist", "example.env"]) {
      expect(vars({ [file]: "export GREETING='hello world'\nJWT_SECRET=\n" })).toEqual<SetupVar[]>([
        { name: "JWT_SECRET", required: true, description: "", input: "generate", value: "" },
        { name: "GREETING", required: false, description: "", input: "auto", value: "hello world" },
      ]);
    }
  });

  it("never passes on a secret-looking example value", () => {
    const result = vars({
      ".env.example": lines(
        "STRIPE_SECRET_KEY=sk_test_51Habcdefghijklmnopqrstuv",
        "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "WEBHOOK_URL=https://hooks.slack.com/services/T000/B000/XXXXXXXX",
        "CUSTOM_SETTING=Zx8pQ2mN7vB4kL9sT1wR6yH3",
        "MONGO_URI=mongodb://admin:hunter2@localhost:27017/app",
        "INTERNAL_HASH=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "LARAVEL_KEY=base64:2fl+Ktvkfl+Fuz4Qp/A75G2RTiWVA/ZoKZvp6fiiM10="
      ),
    });
    expect(result.map((v) => [v.name, v.input, v.value, v.required])).toEqual([
      ["CUSTOM_SETTING", "secret", "", true],
      ["GITHUB_TOKEN", "secret", "", true],
      ["INTERNAL_HASH", "secret", "", true],
      ["LARAVEL_KEY", "secret", "", true],
      ["MONGO_URI", "secret", "", true],
      ["STRIPE_SECRET_KEY", "secret", "", true],
      ["WEBHOOK_URL", "secret", "", true],
    ]);
  });

  it("treats placeholders as no value", () => {
    const result = vars({
      ".env.example": lines(
        "SUPPORT_EMAIL=you@example.com",
        "TEAM_NAME=<your team>",
        "REGION_CODE=xxx",
        "THEME=your-theme-here",
        "MAIL_PASSWORD=null",
        "SITE_TITLE=My site"
      ),
    });
    expect(result).toEqual<SetupVar[]>([
      { name: "REGION_CODE", required: true, description: "", input: "secret", value: "" },
      { name: "SUPPORT_EMAIL", required: true, description: "", input: "secret", value: "" },
      { name: "TEAM_NAME", required: true, description: "", input: "secret", value: "" },
      { name: "THEME", required: true, description: "", input: "secret", value: "" },
      // E-mail is a service apps run without: not required, however its example looks.
      { name: "MAIL_PASSWORD", required: false, description: "", input: "secret", value: "" },
      { name: "SITE_TITLE", required: false, description: "", input: "auto", value: "My site" },
    ]);
  });
});

describe("findSetupVars: classification", () => {
  const classified = (text: string) =>
    vars({ ".env.example": text }).map((v) => ({ name: v.name, input: v.input, value: v.value }));

  it("fills the app's own address, origin, bind host and run mode", () => {
    expect(
      classified(
        lines(
          "NEXTAUTH_URL=",
          "NEXT_PUBLIC_SITE_URL=",
          "VITE_APP_URL=",
          "PUBLIC_URL=",
          "BASE_URL=",
          "ORIGIN=",
          "HOST=localhost",
          "RAILS_ENV=development",
          "ASPNETCORE_ENVIRONMENT=Development"
        )
      )
    ).toEqual([
      { name: "BASE_URL", input: "auto", value: "https://demo.sites.example/app" },
      { name: "NEXTAUTH_URL", input: "auto", value: "https://demo.sites.example/app" },
      { name: "NEXT_PUBLIC_SITE_URL", input: "auto", value: "https://demo.sites.example/app" },
      { name: "ORIGIN", input: "auto", value: "https://demo.sites.example" },
      { name: "PUBLIC_URL", input: "auto", value: "https://demo.sites.example/app" },
      { name: "VITE_APP_URL", input: "auto", value: "https://demo.sites.example/app" },
      // defaults in the example make these optional; empty ones above are required
      { name: "ASPNETCORE_ENVIRONMENT", input: "auto", value: "Production" },
      { name: "HOST", input: "auto", value: "0.0.0.0" },
      { name: "RAILS_ENV", input: "auto", value: "production" },
    ]);
  });

  it("generates the app's own secrets, and asks the owner for third-party ones", () => {
    expect(
      classified(
        lines(
          "SECRET_KEY=",
          "SECRET_KEY_BASE=",
          "APP_KEY=",
          "NEXTAUTH_SECRET=",
          "BETTER_AUTH_SECRET=",
          "ENCRYPTION_KEY=",
          "PASSWORD_SALT=",
          "COOKIE_SECRET=",
          "CSRF_SECRET=",
          "STRIPE_WEBHOOK_SECRET=",
          "GITHUB_CLIENT_SECRET=",
          "AUTH_GOOGLE_SECRET=",
          "WEBHOOK_SECRET=",
          "AWS_SECRET_ACCESS_KEY=",
          "AWS_REGION=eu-west-1",
          "OPENAI_MODEL=gpt-4o-mini",
          "SMTP_HOST=smtp.mailgun.org",
          "SMTP_PORT=587",
          "SMTP_PASSWORD=",
          "TELEGRAM_BOT_TOKEN=",
          "ADMIN_PASSWORD=admin",
          "DATABASE_URL=postgresql://postgres:postgres@localhost:5432/app",
          "REDIS_URL=redis://localhost:6379",
          "DB_HOST=localhost",
          "DB_PORT=5432"
        )
      )
    ).toEqual([
      { name: "ADMIN_PASSWORD", input: "secret", value: "" },
      { name: "APP_KEY", input: "generate", value: "" },
      { name: "AUTH_GOOGLE_SECRET", input: "secret", value: "" },
      { name: "AWS_SECRET_ACCESS_KEY", input: "secret", value: "" },
      { name: "BETTER_AUTH_SECRET", input: "generate", value: "" },
      { name: "COOKIE_SECRET", input: "generate", value: "" },
      { name: "CSRF_SECRET", input: "generate", value: "" },
      { name: "DATABASE_URL", input: "secret", value: "" },
      { name: "DB_HOST", input: "secret", value: "" },
      { name: "ENCRYPTION_KEY", input: "generate", value: "" },
      { name: "GITHUB_CLIENT_SECRET", input: "secret", value: "" },
      { name: "NEXTAUTH_SECRET", input: "generate", value: "" },
      { name: "PASSWORD_SALT", input: "generate", value: "" },
      { name: "REDIS_URL", input: "secret", value: "" },
      { name: "SECRET_KEY", input: "generate", value: "" },
      { name: "SECRET_KEY_BASE", input: "generate", value: "" },
      { name: "STRIPE_WEBHOOK_SECRET", input: "secret", value: "" },
      { name: "TELEGRAM_BOT_TOKEN", input: "secret", value: "" },
      { name: "WEBHOOK_SECRET", input: "secret", value: "" },
      { name: "AWS_REGION", input: "auto", value: "eu-west-1" },
      { name: "DB_PORT", input: "auto", value: "5432" },
      { name: "OPENAI_MODEL", input: "auto", value: "gpt-4o-mini" },
      { name: "SMTP_HOST", input: "secret", value: "" },
      { name: "SMTP_PASSWORD", input: "secret", value: "" },
      { name: "SMTP_PORT", input: "auto", value: "587" },
    ]);
  });

  it("keeps a SQLite database URL, which needs no outside database", () => {
    expect(vars({ ".env.example": 'DATABASE_URL="file:./data/app.db"\n' })).toEqual<SetupVar[]>([
      { name: "DATABASE_URL", required: false, description: "", input: "auto", value: "file:./data/app.db" },
    ]);
  });

  it("leaves PORT out: the service sets it", () => {
    expect(vars({ ".env.example": "PORT=8080\n", "app.json": '{"env": {"PORT": {"value": "5000"}}}' })).toEqual([]);
  });
});

describe("findSetupVars: other sources", () => {
  it("reads Heroku's app.json", () => {
    const appJson = {
      name: "demo",
      env: {
        SECRET_TOKEN: { description: "A secret key for verifying the integrity of signed cookies.", generator: "secret" },
        WEB_CONCURRENCY: { description: "The number of processes to run.", value: "5" },
        LANG: "en_US.UTF-8",
        MAILER_API_KEY: { description: "Key of the mail service", required: true },
        ANALYTICS_ID: { description: "Analytics site id", required: false },
      },
    };
    expect(vars({ "app.json": JSON.stringify(appJson) })).toEqual<SetupVar[]>([
      { name: "MAILER_API_KEY", required: true, description: "Key of the mail service", input: "secret", value: "" },
      {
        name: "SECRET_TOKEN",
        required: true,
        description: "A secret key for verifying the integrity of signed cookies.",
        input: "generate",
        value: "",
      },
      { name: "ANALYTICS_ID", required: false, description: "Analytics site id", input: "secret", value: "" },
      { name: "LANG", required: false, description: "", input: "auto", value: "en_US.UTF-8" },
      { name: "WEB_CONCURRENCY", required: false, description: "The number of processes to run.", input: "auto", value: "5" },
    ]);
  });

  it("reads compose environment in list and map forms, for the services the repository builds", () => {
    const compose = lines(
      "services:",
      "  app:",
      "    build: .",
      "    environment:",
      "      - NODE_ENV=production",
      "      - FEATURE_FLAGS=${FEATURE_FLAGS:-search,tags}",
      "      - MEILI_MASTER_KEY=${MEILI_MASTER_KEY:?set a key}",
      "      - UPSTREAM_URL",
      "      - CONTACT=${CONTACT}",
      "      - PRICE=$$5",
      "  worker:",
      "    build: .",
      "    environment:",
      "      QUEUE_NAME: default",
      "      CONCURRENCY: 4",
      "      DATABASE_URL: postgres://app:${DB_PASSWORD}@db:5432/app",
      "  db:",
      "    image: postgres:16",
      "    environment:",
      "      POSTGRES_PASSWORD: example"
    );
    expect(vars({ "docker-compose.yml": compose })).toEqual<SetupVar[]>([
      { name: "CONTACT", required: true, description: "", input: "secret", value: "" },
      { name: "DATABASE_URL", required: true, description: "", input: "secret", value: "" },
      { name: "MEILI_MASTER_KEY", required: true, description: "", input: "secret", value: "" },
      { name: "UPSTREAM_URL", required: true, description: "", input: "secret", value: "" },
      { name: "CONCURRENCY", required: false, description: "", input: "auto", value: "4" },
      { name: "FEATURE_FLAGS", required: false, description: "", input: "auto", value: "search,tags" },
      { name: "NODE_ENV", required: false, description: "", input: "auto", value: "production" },
      { name: "PRICE", required: false, description: "", input: "auto", value: "$5" },
      { name: "QUEUE_NAME", required: false, description: "", input: "auto", value: "default" },
    ]);
  });

  it("takes every non-database service when none is built", () => {
    const compose = lines(
      "services:",
      "  app:",
      "    image: ghcr.io/acme/app:latest",
      "    environment: { APP_TITLE: Acme }",
      "  cache:",
      "    image: redis:7-alpine",
      "    environment: [REDIS_ARGS=--save 60 1]"
    );
    expect(vars({ "compose.yaml": compose })).toEqual<SetupVar[]>([
      { name: "APP_TITLE", required: false, description: "", input: "auto", value: "Acme" },
    ]);
  });

  it("reads a zod env schema", () => {
    const envTs = lines(
      'import { z } from "zod";',
      "",
      "const schema = z.object({",
      "  // Postgres connection string",
      "  DATABASE_URL: z.string().url(),",
      "  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),",
      "  /** Port of the HTTP server */",
      "  PORT: z.coerce.number().default(3000),",
      "  RESEND_API_KEY: z",
      "    .string()",
      "    .min(1)",
      '    .describe("Sends the sign-in emails"),',
      "  FEATURE_X: z.coerce.boolean().optional(),",
      '  "CACHE_TTL": z.coerce.number().default(600),',
      "  AUTH_SECRET: z.string().min(32), NEXT_PUBLIC_APP_NAME: z.string().default(`Acme`),",
      "});",
      "",
      "export const env = schema.parse(process.env);"
    );
    expect(vars({ "src/env.ts": envTs })).toEqual<SetupVar[]>([
      { name: "AUTH_SECRET", required: true, description: "", input: "generate", value: "" },
      { name: "DATABASE_URL", required: true, description: "Postgres connection string", input: "secret", value: "" },
      { name: "RESEND_API_KEY", required: true, description: "Sends the sign-in emails", input: "secret", value: "" },
      { name: "CACHE_TTL", required: false, description: "", input: "auto", value: "600" },
      { name: "FEATURE_X", required: false, description: "", input: "secret", value: "" },
      { name: "NEXT_PUBLIC_APP_NAME", required: false, description: "", input: "auto", value: "Acme" },
      { name: "NODE_ENV", required: false, description: "", input: "auto", value: "production" },
    ]);
  });

  it("ignores a file named env.ts that is not an env schema", () => {
    expect(vars({ "env.ts": "export const THEME = { PRIMARY: z.string() };" })).toEqual([]);
  });

  it("reads .env.schema with its marks", () => {
    const schema = lines(
      "# Where the API lives",
      "# @required",
      "API_BASE=https://api.acme.test",
      "# @optional @sensitive",
      "ANALYTICS_WRITE_KEY=",
      "# @sensitive",
      "SIGNING_PEM="
    );
    expect(vars({ ".env.schema": schema })).toEqual<SetupVar[]>([
      { name: "API_BASE", required: true, description: "Where the API lives", input: "auto", value: "https://api.acme.test" },
      { name: "SIGNING_PEM", required: true, description: "", input: "secret", value: "" },
      { name: "ANALYTICS_WRITE_KEY", required: false, description: "", input: "secret", value: "" },
    ]);
  });
});

describe("findSetupVars: merging", () => {
  it("merges by name: first description, required if any source requires it, sorted required first", () => {
    const result = vars({
      "app.json": JSON.stringify({ env: { BRAND_NAME: { description: "Shown in the header", value: "Acme" } } }),
      ".env.example": lines("# The name on every page", "BRAND_NAME=", "# How many items per page", "PAGE_SIZE=20"),
      "docker-compose.yml": lines(
        "services:",
        "  web:",
        "    build: .",
        "    environment:",
        "      PAGE_SIZE: 50",
        "      JWT_SECRET: ${JWT_SECRET}"
      ),
    });
    expect(result).toEqual<SetupVar[]>([
      { name: "BRAND_NAME", required: true, description: "Shown in the header", input: "auto", value: "Acme" },
      { name: "JWT_SECRET", required: true, description: "", input: "generate", value: "" },
      { name: "PAGE_SIZE", required: false, description: "How many items per page", input: "auto", value: "20" },
    ]);
  });

  it("answers nothing for a repository without settings", () => {
    expect(vars({ "README.md": "# hi", "package.json": "{}" })).toEqual([]);
  });
});

describe("value checks", () => {
  it("tells placeholders and credentials apart from plain values", () => {
    const values = [
      "changeme",
      "your_api_key",
      "<token>",
      "sk-...",
      "https://example.com",
      "info",
      "3000",
      "en_US.UTF-8",
      "gpt-4o-mini",
    ];
    expect(values.map((value) => [isPlaceholder(value), looksLikeCredential(value)])).toEqual([
      [true, false],
      [true, false],
      [true, false],
      [true, false],
      [true, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });
});
