import type { SourceTree } from "../source-tree.js";
import { codeFiles, type CodeFile } from "./code-files.js";
import type { Mention } from "./mention.js";

/**
 * Settings a framework fails without even when the code never names them:
 * - Auth.js / next-auth v5 (`next-auth` 5.x or `@auth/*`): `AUTH_SECRET` (MissingSecret in
 *   production) and `AUTH_TRUST_HOST=true` (UntrustedHost on any host but Vercel);
 * - next-auth v4: `NEXTAUTH_SECRET` (NO_SECRET in production) and `NEXTAUTH_URL` (callbacks);
 * - Deno KV OAuth (`deno_kv_oauth`, `@deno/kv-oauth`): `create<Provider>OAuthConfig()` reads
 *   `<PROVIDER>_CLIENT_ID` and `<PROVIDER>_CLIENT_SECRET` itself and throws without them.
 */
export function fromFrameworks(tree: SourceTree): Mention[] {
  return [...fromAuthJs(tree), ...fromKvOAuth(codeFiles(tree))];
}

function fromAuthJs(tree: SourceTree): Mention[] {
  const dependencies = packageDependencies(tree);
  const nextAuth = dependencies["next-auth"];
  const authJs = Object.keys(dependencies).some((name) => name.startsWith("@auth/") && name !== "@auth/prisma-adapter" && name !== "@auth/drizzle-adapter") ;
  const mention = (name: string, description: string, value: string | null = null): Mention => ({
    name,
    description,
    value,
    required: true,
    source: "framework",
  });
  if ((nextAuth !== undefined && /(^|[^\d])5\.|beta/.test(nextAuth)) || (nextAuth === undefined && authJs)) {
    return [
      mention("AUTH_SECRET", "Auth.js signs and encrypts sessions with it; it refuses to run in production without one."),
      mention("AUTH_TRUST_HOST", "Auth.js only trusts the request's host when this is true (it answers UntrustedHost otherwise).", "true"),
    ];
  }
  if (nextAuth !== undefined && /(^|[^\d])4\./.test(nextAuth)) {
    return [
      mention("NEXTAUTH_SECRET", "next-auth signs and encrypts sessions with it; it refuses to run in production without one."),
      mention("NEXTAUTH_URL", "The app's address, for next-auth's sign-in callbacks."),
    ];
  }
  return [];
}

const KV_OAUTH_IMPORT = /\bfrom\s+["'][^"']*(?:deno_kv_oauth|kv[_-]oauth)[^"']*["']/;

function fromKvOAuth(files: CodeFile[]): Mention[] {
  const providers = new Set<string>();
  for (const file of files) {
    if (!KV_OAUTH_IMPORT.test(file.text)) continue;
    for (const call of file.text.matchAll(/\bcreate([A-Z][A-Za-z0-9]*)OAuthConfig\s*\(/g)) providers.add(call[1]!.toUpperCase());
  }
  return [...providers].flatMap((provider) => [
    { name: `${provider}_CLIENT_ID`, description: "The OAuth app's client ID; Deno KV OAuth reads it and throws without it.", value: null, required: true, source: "framework" as const },
    { name: `${provider}_CLIENT_SECRET`, description: "The OAuth app's client secret; Deno KV OAuth reads it and throws without it.", value: null, required: true, source: "framework" as const },
  ]);
}

function packageDependencies(tree: SourceTree): Record<string, string> {
  const text = tree.read("package.json");
  if (text === null) return {};
  try {
    const parsed = JSON.parse(text) as { dependencies?: unknown };
    const dependencies = parsed?.dependencies;
    if (dependencies === null || typeof dependencies !== "object") return {};
    return Object.fromEntries(Object.entries(dependencies).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  } catch {
    return {};
  }
}
