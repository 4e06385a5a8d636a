import { COMPOSE_FILES, composeAppServices, readComposeServices } from "./find-dockerfile.js";
import type { SetupVar } from "./repo-check.js";
import type { SourceTree } from "./source-tree.js";

export interface SetupVarsContext {
  /** The app's own address (ends in `/app/`), the ready value of `APP_URL`-like settings. */
  appUrl: string;
}

/**
 * The settings an app asks for, read from (in this order; the first description found wins):
 *
 * 1. `app.json` (Heroku): `env` entries with `description`, `required` (when not given: required
 *    unless it has a `value`), `value`, `generator: "secret"`;
 * 2. example env files `.env.example`, `.env.sample`, `.env.template`, `.env.dist`, `example.env`,
 *    `.env.local.example`, `.env.production.example`: the comment lines right above a key describe it
 *    (else its inline ` # comment`), a commented-out `# KEY=value` is an optional setting;
 * 3. `.env.schema`: the same format, with varlock-style `@required`, `@optional`, `@sensitive` marks;
 * 4. zod schemas in `env.ts`, `src/env.ts`, `env.mjs`, … (see {@link ENV_SCHEMA_FILES}): entries
 *    `KEY: z.…` in upper case; `.optional()`, `.default(…)`, `.catch(…)` make them optional,
 *    `.default("literal")` gives a default, `.describe("…")` a description. Read with patterns, not a
 *    TypeScript parser: only literal defaults are understood and keys built at run time are missed;
 * 5. compose files (see `COMPOSE_FILES`): `environment:` of the services the repository builds
 *    (`build:`; when none builds, every service whose image is not a well-known database, cache or
 *    proxy), in `- KEY=value` list and `KEY: value` map forms; `KEY` alone, `${VAR}` and `${VAR:?err}`
 *    mean required, `${VAR:-default}` gives a default. Names only referenced inside values (a
 *    password inside a `DATABASE_URL`) are not settings of the app and are not listed.
 *
 * Each source either gives a usable default or requires the setting; a setting is required when any
 * source requires it and no explicit mark (`optional` in a comment, `required: false`, zod
 * `.optional()`) says otherwise for that source. Example values of `generate`/`secret` settings, and
 * anything that looks like a credential or a placeholder, are never passed on as `value`.
 *
 * `input`:
 * - `auto`: the app's own address (`APP_URL`, `BASE_URL`, `SITE_URL`, `NEXTAUTH_URL`, … with their
 *   `NEXT_PUBLIC_`/`VITE_`/… forms) with `value` = `appUrl` without its trailing slash, `ORIGIN`-like
 *   names with the address's origin; `HOST` as a bind address → `0.0.0.0`; `NODE_ENV`-like → `production`;
 *   a SQLite `DATABASE_URL` keeps its default; any other setting with a harmless default keeps it;
 * - `generate`: secrets the app only needs to be long and random (`SECRET_KEY`, `*_SECRET`,
 *   `JWT_SECRET`, `APP_KEY`, `*_SALT`, `ENCRYPTION_KEY`, …) unless they belong to a third party;
 * - `secret`: what only the owner has: third-party credentials (names with a known vendor such as
 *   `STRIPE`, `OPENAI`, `AWS`, `SMTP`…; `*_API_KEY`, `*_TOKEN`, `*_PASSWORD`, `*_CLIENT_SECRET`, …),
 *   database and cache connections (`DATABASE_URL`, `REDIS_URL`, `DB_HOST`: the service offers no
 *   database, so the owner brings one), and any setting without a usable default.
 *
 * An `auto` setting can still be `required` (an example that leaves `NEXTAUTH_URL=` empty): the app
 * needs it, and the ready `value` covers it.
 *
 * `PORT` is never listed: the service sets it from the app's port setting.
 * Sorted required first, then by name.
 */
export function findSetupVars(tree: SourceTree, context: SetupVarsContext): SetupVar[] {
  const mentions = [
    ...fromAppJson(tree),
    ...EXAMPLE_ENV_FILES.flatMap((file) => fromDotenv(tree, file, false)),
    ...fromDotenv(tree, ".env.schema", true),
    ...ENV_SCHEMA_FILES.flatMap((file) => fromZodSchema(tree, file)),
    ...COMPOSE_FILES.flatMap((file) => fromCompose(tree, file)),
  ];

  const byName = new Map<string, Mention[]>();
  for (const mention of mentions) {
    if (!VAR_NAME.test(mention.name) || SERVICE_SET.has(mention.name)) continue;
    byName.set(mention.name, [...(byName.get(mention.name) ?? []), mention]);
  }

  const vars = [...byName.entries()].map(([name, list]) => settle(name, list, context));
  return vars.sort((a, b) => Number(b.required) - Number(a.required) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export const EXAMPLE_ENV_FILES = [
  ".env.example",
  ".env.sample",
  ".env.template",
  ".env.dist",
  "example.env",
  ".env.local.example",
  ".env.production.example",
];

export const ENV_SCHEMA_FILES = [
  "env.ts",
  "env.mjs",
  "env.js",
  "src/env.ts",
  "src/env.mjs",
  "src/env.js",
  "src/env/server.ts",
  "src/env/server.mjs",
  "src/env/client.ts",
  "src/env/client.mjs",
  "src/lib/env.ts",
  "lib/env.ts",
  "src/config/env.ts",
  "config/env.ts",
];

/** Set by the service itself. */
const SERVICE_SET = new Set(["PORT"]);
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What one source says about one setting. */
interface Mention {
  name: string;
  description: string;
  /** The example's or schema's default, as written; null when none. */
  value: string | null;
  /** An explicit mark: true required, false optional; undefined leaves it to the default rule. */
  required?: boolean;
  /** The source says the service may generate it (`generator: "secret"`). */
  generate?: boolean;
  /** The source says the value is sensitive (`@sensitive`). */
  sensitive?: boolean;
}

function settle(name: string, mentions: Mention[], context: SetupVarsContext): SetupVar {
  const description = mentions.find((mention) => mention.description !== "")?.description ?? "";
  const values = mentions.map((mention) => mention.value).filter((value): value is string => value !== null && value !== "");
  const { input, value } = classify(name, values, mentions, context);
  const usableDefault = (mention: Mention) =>
    mention.value !== null && input === "auto" && isHarmlessValue(mention.value) && mention.value !== "";
  const required = mentions.some((mention) => mention.required ?? !usableDefault(mention));
  return { name, required, description, input, value };
}

// ---------------------------------------------------------------------------------------------
// Classification

const FRAMEWORK_PREFIX = /^(NEXT_PUBLIC_|VITE_|REACT_APP_|NUXT_PUBLIC_|NUXT_|EXPO_PUBLIC_|GATSBY_|VUE_APP_|PUBLIC_)/;
const OWN_URL = new Set([
  "APP_URL",
  "BASE_URL",
  "PUBLIC_URL",
  "SITE_URL",
  "HOST_URL",
  "ROOT_URL",
  "WEB_URL",
  "WEBSITE_URL",
  "FRONTEND_URL",
  "APPLICATION_URL",
  "CANONICAL_URL",
  "EXTERNAL_URL",
  "SELF_URL",
  "APP_BASE_URL",
  "PUBLIC_BASE_URL",
  "SITE_BASE_URL",
  "NEXTAUTH_URL",
  "AUTH_URL",
  "BETTER_AUTH_URL",
]);
const OWN_ORIGIN = new Set(["ORIGIN", "APP_ORIGIN", "PUBLIC_ORIGIN", "SITE_ORIGIN"]);
const BIND_HOST = new Set(["HOST", "BIND_HOST", "LISTEN_HOST", "BIND_ADDRESS", "LISTEN_ADDRESS", "BIND"]);
const RUN_MODE: Record<string, string> = {
  NODE_ENV: "production",
  RAILS_ENV: "production",
  RACK_ENV: "production",
  MIX_ENV: "prod",
  APP_ENV: "production",
  FLASK_ENV: "production",
  ASPNETCORE_ENVIRONMENT: "Production",
};

const GENERATE = new Set([
  "SECRET",
  "SECRET_KEY",
  "SECRET_KEY_BASE",
  "APP_KEY",
  "APP_KEYS",
  "APP_SECRET",
  "MASTER_KEY",
  "ENCRYPTION_KEY",
  "ENCRYPT_KEY",
  "CRYPTO_KEY",
  "SIGNING_KEY",
  "SIGNING_SECRET",
  "SALT",
  "JWT_KEY",
  "JWT_SECRET",
  "JWT_SECRET_KEY",
  "SESSION_KEY",
  "SESSION_SECRET",
  "COOKIE_KEY",
  "COOKIE_SECRET",
  "NEXTAUTH_SECRET",
  "AUTH_SECRET",
  "BETTER_AUTH_SECRET",
]);
/** Endings of self-made secrets: `*_SECRET`, `*_SECRET_KEY`, `*_SALT`, `*_ENCRYPTION_KEY`, `*_SIGNING_KEY`. */
const GENERATE_ENDING = /_(SECRET|SECRET_KEY|SALT|ENCRYPTION_KEY|SIGNING_KEY|SIGNING_SECRET)$/;
/** Endings of credentials issued by someone else. */
const CREDENTIAL_ENDING =
  /(^|_)(API_KEY|APIKEY|API_SECRET|API_TOKEN|ACCESS_KEY|ACCESS_KEY_ID|SECRET_ACCESS_KEY|ACCESS_TOKEN|AUTH_TOKEN|REFRESH_TOKEN|BOT_TOKEN|TOKEN|CLIENT_ID|CLIENT_SECRET|CONSUMER_KEY|CONSUMER_SECRET|WEBHOOK_SECRET|WEBHOOK_URL|PRIVATE_KEY|PUBLIC_KEY|PUBLISHABLE_KEY|ANON_KEY|SERVICE_ROLE_KEY|SERVICE_KEY|ACCOUNT_SID|SID|DSN|PASSWORD|PASS|PASSWD|PWD|CREDENTIALS|KEY_ID|LICENSE_KEY|KEY)$/;
/** Third parties; a name with one of these words is the owner's to fill. */
const VENDORS = new Set(
  (
    "STRIPE OPENAI ANTHROPIC CLAUDE AWS S3 R2 GITHUB GITLAB BITBUCKET GOOGLE GCP GCLOUD FIREBASE AZURE MICROSOFT " +
    "SENDGRID MAILGUN MAILCHIMP MANDRILL POSTMARK RESEND BREVO SENDINBLUE SES SMTP TWILIO VONAGE SLACK DISCORD " +
    "TELEGRAM TWITTER FACEBOOK INSTAGRAM LINKEDIN APPLE SUPABASE CLOUDINARY SENTRY DATADOG NEWRELIC PUSHER ABLY " +
    "ALGOLIA MEILISEARCH AUTH0 CLERK OKTA MAPBOX GEMINI GROQ MISTRAL COHERE HUGGINGFACE HF REPLICATE PINECONE " +
    "PAYPAL SHOPIFY UPSTASH NEON PLANETSCALE TURSO VERCEL NETLIFY CLOUDFLARE LEMONSQUEEZY PADDLE POSTHOG " +
    "MIXPANEL SEGMENT AMPLITUDE NOTION AIRTABLE SPOTIFY DEEPGRAM ELEVENLABS ASSEMBLYAI OPENROUTER DEEPSEEK " +
    "PERPLEXITY UPLOADTHING LIVEKIT RECAPTCHA HCAPTCHA TURNSTILE PLAID"
  ).split(" ")
);
/** Vendor settings that are not credentials, taken as they are when the example gives them. */
const PLAIN_ENDING =
  /_(PORT|REGION|DEFAULT_REGION|MODEL|BASE_URL|API_BASE|TIMEOUT|SECURE|TLS|ENABLED|VERSION|LOG_LEVEL|TEMPERATURE|MAX_TOKENS)$/;
const DATA_STORE =
  /(^|_)(DATABASE|DB|POSTGRES|POSTGRESQL|PG|MYSQL|MARIADB|MONGO|MONGODB|REDIS|VALKEY|KV|AMQP|RABBITMQ|ELASTIC|ELASTICSEARCH|OPENSEARCH|CLICKHOUSE|NEO4J|CASSANDRA|MEMCACHED|NATS|KAFKA|LIBSQL)(_[A-Z0-9]+)*_(URL|URI|DSN|CONNECTION_STRING|HOST|HOSTNAME|USER|USERNAME)$|^DIRECT_URL$/;
const SQLITE = /^(file:|sqlite:)|\.(db|sqlite3?)$/i;

function classify(
  name: string,
  values: string[],
  mentions: Mention[],
  context: SetupVarsContext
): Pick<SetupVar, "input" | "value"> {
  const bare = name.replace(FRAMEWORK_PREFIX, "");
  const first = values[0];
  const harmless = values.find(isHarmlessValue);

  if (OWN_URL.has(name) || OWN_URL.has(bare)) return { input: "auto", value: context.appUrl.replace(/\/+$/, "") };
  if (OWN_ORIGIN.has(name) || OWN_ORIGIN.has(bare)) return { input: "auto", value: originOf(context.appUrl) };
  if (BIND_HOST.has(name)) {
    if (first === undefined || /^(localhost|127\.0\.0\.1|0\.0\.0\.0|::1?|\[::1?\])$/.test(first))
      return { input: "auto", value: "0.0.0.0" };
  }
  if (name in RUN_MODE) return { input: "auto", value: RUN_MODE[name]! };

  if (mentions.some((mention) => mention.generate)) return { input: "generate", value: "" };
  const words = bare.split("_");
  const vendor = words.some((word) => VENDORS.has(word)) || /^(AWS|AZURE|GCP|GOOGLE)_/.test(name);
  // A webhook or OAuth secret is shared with another service, so the owner has to know it.
  const thirdPartyEnding = /(^|_)(CLIENT_SECRET|API_SECRET|CONSUMER_SECRET|WEBHOOK_SECRET)$/.test(bare);
  if (!vendor && !thirdPartyEnding && (GENERATE.has(bare) || GENERATE_ENDING.test(bare))) return { input: "generate", value: "" };

  if (DATA_STORE.test(bare)) {
    const sqlite = values.find((value) => SQLITE.test(value) && isHarmlessValue(value));
    return sqlite ? { input: "auto", value: sqlite } : { input: "secret", value: "" };
  }
  if (vendor && PLAIN_ENDING.test(bare) && harmless !== undefined) return { input: "auto", value: harmless };
  if (vendor || CREDENTIAL_ENDING.test(bare) || mentions.some((mention) => mention.sensitive))
    return { input: "secret", value: "" };
  if (values.some(looksLikeCredential)) return { input: "secret", value: "" };
  if (harmless !== undefined) return { input: "auto", value: harmless };
  return { input: "secret", value: "" };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url.replace(/\/+$/, "");
  }
}

/** A value that can be passed on as it is: not empty, not a placeholder, not a credential. */
export function isHarmlessValue(value: string): boolean {
  return value.trim() !== "" && !isPlaceholder(value) && !looksLikeCredential(value);
}

const PLACEHOLDER =
  /^(<.*>|\[.*\]|\{\{.*\}\}|x{3,}|\*{3,}|\.{3,}|-|null|nil|none|undefined|todo|tbd|fixme|placeholder|secret|password|changeme|change[-_ ]?(me|this|it)\b.*|replace[-_ ]?(me|this|with)\b.*|(insert|enter|put|add|paste|set)[-_ ](your|the|a|an)\b.*|.*\.\.\.|.*[-_ ]here)$/i;

export function isPlaceholder(value: string): boolean {
  const trimmed = value.trim();
  return PLACEHOLDER.test(trimmed) || /(^|[-_ .:/])your([-_ .]|$)/i.test(trimmed) || /\bexample\.(com|org|net)\b/i.test(trimmed);
}

const CREDENTIAL_SHAPES = [
  /^(sk|pk|rk)_(live|test)_/,
  /^sk-[A-Za-z0-9_-]{8,}/,
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{10,}/,
  /^github_pat_/,
  /^glpat-/,
  /^xox[abposr]-/,
  /^AKIA[0-9A-Z]{12,}/,
  /^AIza[0-9A-Za-z_-]{20,}/,
  /^eyJ[A-Za-z0-9_-]+\./,
  /^whsec_/,
  /^SG\.[A-Za-z0-9_-]{10,}/,
  /^hf_[A-Za-z0-9]{10,}/,
  /^re_[A-Za-z0-9]{8,}/,
  /^base64:/,
  /-----BEGIN [A-Z ]*KEY-----/,
  /:\/\/[^/\s:@]+:[^/\s@]+@/,
];

/** Token-shaped: a known key prefix, a password in a URL, or a long random-looking string. */
export function looksLikeCredential(value: string): boolean {
  const trimmed = value.trim();
  if (CREDENTIAL_SHAPES.some((shape) => shape.test(trimmed))) return true;
  if (trimmed.length >= 32 && /^[0-9a-f]+$/i.test(trimmed)) return true;
  return (
    trimmed.length >= 20 &&
    /^[A-Za-z0-9+/=_-]+$/.test(trimmed) &&
    /[a-z]/.test(trimmed) &&
    /[A-Z]/.test(trimmed) &&
    /\d/.test(trimmed)
  );
}

// ---------------------------------------------------------------------------------------------
// Sources

function fromAppJson(tree: SourceTree): Mention[] {
  const text = tree.read("app.json");
  if (text === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const env = (parsed as { env?: unknown } | null)?.env;
  if (env === null || typeof env !== "object" || Array.isArray(env)) return [];
  return Object.entries(env as Record<string, unknown>).map(([name, entry]): Mention => {
    if (typeof entry === "string") return { name, description: "", value: entry };
    const spec = (entry ?? {}) as { description?: unknown; required?: unknown; value?: unknown; generator?: unknown };
    const generate = spec.generator === "secret";
    const value = typeof spec.value === "string" ? spec.value : typeof spec.value === "number" ? String(spec.value) : null;
    // Heroku's default is required; a plain default or a generator fills it.
    const required = spec.required === false ? false : spec.required === true || generate ? true : undefined;
    return { name, description: typeof spec.description === "string" ? spec.description.trim() : "", value, required, generate };
  });
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s?(.*)$/;
const COMMENTED_ASSIGNMENT = /^#+\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(.*)$/;
const OPTIONAL_NOTE =
  /\boptional(ly)?\b|\bnot required\b|\bif (you )?(want|need|use|using)\b|\bleave (it )?(empty|blank)\b|\bcan be (left )?(empty|blank)\b/i;
const REQUIRED_NOTE = /\brequired\b/i;

/**
 * A dotenv file: `KEY=value`, `export KEY=value`, quoted values (single, double, backtick; double
 * quotes may span lines), ` # comments` after unquoted values.
 */
function fromDotenv(tree: SourceTree, file: string, schema: boolean): Mention[] {
  const text = tree.read(file);
  if (text === null) return [];
  const mentions: Mention[] = [];
  let comments: string[] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === "") {
      comments = [];
      continue;
    }
    if (line.startsWith("#")) {
      const commented = COMMENTED_ASSIGNMENT.exec(line);
      if (commented) {
        mentions.push(mentionFrom(commented[1]!, readDotenvValue(commented[2]!, []).value, comments, "", schema, false));
        comments = [];
      } else {
        comments.push(line.replace(/^#+\s?/, "").trim());
      }
      continue;
    }
    const match = ASSIGNMENT.exec(line);
    if (!match) {
      comments = [];
      continue;
    }
    const rest = lines.slice(index + 1);
    const { value, inlineComment, linesUsed } = readDotenvValue(match[2]!, rest);
    index += linesUsed;
    mentions.push(mentionFrom(match[1]!, value, comments, inlineComment, schema, undefined));
    comments = [];
  }
  return mentions;
}

function mentionFrom(
  name: string,
  value: string,
  comments: string[],
  inlineComment: string,
  schema: boolean,
  required: boolean | undefined
): Mention {
  const text = comments.filter((line) => /[A-Za-z0-9]/.test(line)).join(" ") || inlineComment;
  const marks = new Set([...text.matchAll(/@([a-zA-Z]+)/g)].map((match) => match[1]!.toLowerCase()));
  const description = schema
    ? text
        .replace(/@[a-zA-Z]+(=\S+)?/g, "")
        .replace(/\s+/g, " ")
        .trim()
    : text;
  let explicit = required;
  if (explicit === undefined) {
    if (schema && marks.has("optional")) explicit = false;
    else if (schema && marks.has("required")) explicit = true;
    else if (OPTIONAL_NOTE.test(text)) explicit = false;
    else if (REQUIRED_NOTE.test(text) && !/\bnot\b/i.test(text)) explicit = true;
  }
  return { name, description, value, required: explicit, sensitive: schema && marks.has("sensitive") };
}

function readDotenvValue(raw: string, following: string[]): { value: string; inlineComment: string; linesUsed: number } {
  const text = raw.trim();
  const quote = text[0];
  if (quote === '"' || quote === "'" || quote === "`") {
    let body = text.slice(1);
    let linesUsed = 0;
    while (!body.includes(quote) && quote === '"' && linesUsed < following.length) {
      body += `\n${following[linesUsed]}`;
      linesUsed++;
    }
    const end = body.indexOf(quote);
    if (end === -1) return { value: text.slice(1), inlineComment: "", linesUsed: 0 };
    const value = body.slice(0, end);
    const inlineComment = /^\s*#\s?(.*)$/.exec(body.slice(end + 1))?.[1]?.trim() ?? "";
    return { value: quote === '"' ? value.replace(/\\n/g, "\n") : value, inlineComment, linesUsed };
  }
  const hash = /(^|\s)#/.exec(text);
  const value = hash ? text.slice(0, hash.index).trim() : text;
  const inlineComment = hash
    ? text
        .slice(hash.index)
        .replace(/^\s*#\s?/, "")
        .trim()
    : "";
  return { value, inlineComment, linesUsed: 0 };
}

const ZOD_ENTRY = /(?:^|[{,])[ \t]*["']?([A-Z][A-Z0-9_]*)["']?\s*:\s*z\s*\./gm;

function fromZodSchema(tree: SourceTree, file: string): Mention[] {
  const text = tree.read(file);
  if (text === null || !/\bz\s*\./.test(text) || !/process\.env|import\.meta\.env|createEnv/.test(text)) return [];
  const mentions: Mention[] = [];
  for (const match of text.matchAll(ZOD_ENTRY)) {
    const start = match.index + match[0].lastIndexOf("z");
    const chain = readExpression(text, start);
    const description = stringArgument(chain, "describe") ?? commentAbove(text, match.index);
    const defaultValue = literalArgument(chain, "default");
    const optional = /\.\s*(optional|nullish|default|catch)\s*\(/.test(chain);
    mentions.push({ name: match[1]!, description, value: defaultValue, required: optional ? false : true });
  }
  return mentions;
}

/** The expression starting at `start`, up to a `,` or closing bracket at its own depth. */
function readExpression(text: string, start: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'" || ch === "`") {
      quote = ch;
    } else if ("([{".includes(ch)) {
      depth++;
    } else if (")]}".includes(ch)) {
      if (depth === 0) return text.slice(start, i);
      depth--;
    } else if (ch === "," && depth === 0) {
      return text.slice(start, i);
    }
  }
  return text.slice(start);
}

function stringArgument(chain: string, method: string): string | null {
  const match = new RegExp(
    `\\.\\s*${method}\\(\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|'((?:[^'\\\\]|\\\\.)*)'|\`([^\`$]*)\`)\\s*\\)`
  ).exec(chain);
  return match ? match[1] ?? match[2] ?? match[3] ?? "" : null;
}

function literalArgument(chain: string, method: string): string | null {
  const text = stringArgument(chain, method);
  if (text !== null) return text;
  const match = new RegExp(`\\.\\s*${method}\\(\\s*(-?\\d+(?:\\.\\d+)?|true|false)\\s*\\)`).exec(chain);
  return match ? match[1]! : null;
}

/** `// lines` or a `/* … *\/` block right above the entry. */
function commentAbove(text: string, index: number): string {
  const before = text.slice(0, index).replace(/\s+$/, "");
  const block = /\/\*+([\s\S]*?)\*\/$/.exec(before);
  if (block) {
    return block[1]!
      .split("\n")
      .map((line) => line.replace(/^\s*\*?\s?/, "").trim())
      .filter(Boolean)
      .join(" ");
  }
  const lines: string[] = [];
  for (const line of before.split("\n").reverse()) {
    const comment = /^\s*\/\/\s?(.*)$/.exec(line);
    if (!comment) break;
    lines.unshift(comment[1]!.trim());
  }
  return lines.join(" ");
}

function fromCompose(tree: SourceTree, file: string): Mention[] {
  const text = tree.read(file);
  if (text === null) return [];
  return composeAppServices(readComposeServices(text)).flatMap((service) => service.environment.map(composeMention));
}

/** Compose interpolation: `${VAR}`, `$VAR`, `${VAR:-d}`, `${VAR-d}`, `${VAR:?e}`, `${VAR?e}`, `${VAR:+x}`; `$$` is a `$`. */
const INTERPOLATION = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

function composeMention(entry: { name: string; value: string | null }): Mention {
  if (entry.value === null) return { name: entry.name, description: "", value: null, required: true };
  let required = false;
  const value = entry.value.replace(INTERPOLATION, (whole, _name?: string, _colon?: string, op?: string, word?: string) => {
    if (whole === "$$") return "$";
    if (op === "-") return word ?? "";
    if (op === "+") return "";
    required = true; // `${VAR}`, `$VAR`, `${VAR:?err}`: the value comes from outside, with no default
    return "";
  });
  return required
    ? { name: entry.name, description: "", value: null, required: true }
    : { name: entry.name, description: "", value };
}
