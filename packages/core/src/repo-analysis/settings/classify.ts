import type { SetupVar } from "../repo-check.js";
import type { Mention } from "./mention.js";

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
const OWN_ORIGIN = new Set(["ORIGIN", "APP_ORIGIN", "PUBLIC_ORIGIN", "SITE_ORIGIN", "CSRF_TRUSTED_ORIGINS", "DJANGO_CSRF_TRUSTED_ORIGINS"]);
/** Django answers 400 to any host not listed here. */
const OWN_HOST = new Set(["ALLOWED_HOSTS", "DJANGO_ALLOWED_HOSTS"]);
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

/**
 * How the owner fills a setting (`auto`, `generate`, `secret`) and its ready value; see
 * `findSetupVars` for the rules.
 */
export function classify(
  name: string,
  values: string[],
  mentions: Mention[],
  context: { appUrl: string }
): Pick<SetupVar, "input" | "value"> {
  const bare = name.replace(FRAMEWORK_PREFIX, "");
  const first = values[0];
  const harmless = values.find(isHarmlessValue);

  if (OWN_URL.has(name) || OWN_URL.has(bare)) return { input: "auto", value: context.appUrl.replace(/\/+$/, "") };
  if (OWN_ORIGIN.has(name) || OWN_ORIGIN.has(bare)) return { input: "auto", value: originOf(context.appUrl) };
  if (OWN_HOST.has(name)) return { input: "auto", value: hostOf(context.appUrl) };
  if (name === "AUTH_TRUST_HOST") return { input: "auto", value: "true" };
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

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
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

