import { describe, expect, it } from "vitest";
import { findSetupVars } from "../../src/repo-analysis/setup-vars.js";
import { sourceTreeFromFiles } from "../../src/repo-analysis/source-tree.js";

/**
 * Ways real repositories of the corpus read their settings (wagtail/bakerydemo, traefik/whoami,
 * denoland/saaskit), cut to the lines that decide: each setting is required only when the app
 * fails without it.
 */
const context = { appUrl: "https://demo.sites.example/app/" };
const required = (files: Record<string, string>) =>
  Object.fromEntries(findSetupVars(sourceTreeFromFiles(files), context).map((setting) => [setting.name, setting.required]));
const lines = (...text: string[]) => text.join("\n");

describe("settings read the way real repositories read them", () => {
  it("Python: os.environ[…] under `if \"X\" in os.environ`, and a get() that is another get()'s fallback, are optional", () => {
    const settings = required({
      "settings/production.py": lines(
        "import os",
        'if "DJANGO_SECRET_KEY" in os.environ:',
        '    SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]',
        "else:",
        "    SECRET_KEY = make_ephemeral_key()",
        'REDIS_URL = os.environ.get("REDIS_TLS_URL", os.environ.get("REDIS_URL"))',
        'API_TOKEN = os.environ["API_TOKEN"]'
      ),
    });
    expect(settings).toEqual({ API_TOKEN: true, DJANGO_SECRET_KEY: false, REDIS_TLS_URL: false, REDIS_URL: false });
  });

  it("Go: os.Getenv as a flag's default, and a getEnv(key, fallback) helper, are optional", () => {
    const settings = required({
      "go.mod": "module example.com/whoami\n",
      "app.go": lines(
        "package main",
        'import ("flag"; "os")',
        "func main() {",
        '\tflag.StringVar(&port, "port", getEnv("WHOAMI_PORT_NUMBER", "80"), "give me a port number")',
        '\tflag.StringVar(&name, "name", os.Getenv("WHOAMI_NAME"), "give me a name")',
        '\ttoken := os.Getenv("API_TOKEN")',
        "\tuse(token)",
        "}",
        "func getEnv(key, fallback string) string {",
        "\tvalue := os.Getenv(key)",
        '\tif len(value) == 0 {',
        "\t\treturn fallback",
        "\t}",
        "\treturn value",
        "}"
      ),
    });
    expect(settings).toEqual({ API_TOKEN: true, WHOAMI_NAME: false, WHOAMI_PORT_NUMBER: false });
  });

  it("Deno KV OAuth's createGitHubOAuthConfig() needs GITHUB_CLIENT_ID and _SECRET though the code never names them", () => {
    const settings = required({
      "deno.json": '{ "imports": { "kv_oauth/": "https://deno.land/x/deno_kv_oauth@v0.9.1/" } }',
      "plugins/kv_oauth.ts": lines('import { createGitHubOAuthConfig, signIn } from "kv_oauth/mod.ts";', "const oauthConfig = createGitHubOAuthConfig();"),
    });
    expect(settings).toEqual({ GITHUB_CLIENT_ID: true, GITHUB_CLIENT_SECRET: true });
  });

  it("a README section marked optional outweighs a check in the one handler that needs the setting", () => {
    const files = {
      "routes/api/stripe-webhooks.ts": lines(
        'const signingSecret = Deno.env.get("STRIPE_WEBHOOK_SECRET");',
        "if (signingSecret === undefined) {",
        '  throw new Error("STRIPE_WEBHOOK_SECRET is not set");',
        "}"
      ),
    };
    expect(required(files)).toEqual({ STRIPE_WEBHOOK_SECRET: true });
    const readme = lines("# SaaSKit", "", "### Set Up Stripe (Optional)", "", "1. Copy the webhook signing secret:", "   STRIPE_WEBHOOK_SECRET=<secret>", "", "## Deploy");
    expect(required({ ...files, "README.md": readme })).toEqual({ STRIPE_WEBHOOK_SECRET: false });
  });
});
