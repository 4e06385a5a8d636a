import { createIndexNowNotifier, parseSecretKey, type BaseImages, type CreateRepositeOptions, type DiscourseOptions } from "@reposite/core";
import { languageModelFromEnv } from "@reposite/provider-ai";
import { createSmtpMailer } from "@reposite/provider-smtp";
import { discourseFromEnv } from "./site-runtime/dynamic/discourse-env.js";

/** Where the server listens. */
export interface ListenSettings {
  port: number;
  hostname: string;
}

export interface ServerSettings {
  listen: ListenSettings;
  reposite: CreateRepositeOptions;
  /** Believe `X-Forwarded-For` (REPOSITE_TRUST_PROXY=1), only behind a proxy you control. */
  trustProxy?: boolean;
  /** The operator's Discourse (REPOSITE_DISCOURSE_URL + REPOSITE_DISCOURSE_SECRET), or null. */
  discourse?: DiscourseOptions | null;
}

function port(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) {
    throw new Error(`[reposite] PORT must be a whole number from 0 to 65535, not "${value}".`);
  }
  return parsed;
}

const list = (value: string) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** A size in MiB (`64`, `0.5`), as bytes. */
function megabytes(value: string, name: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`[reposite] ${name} must be a number of megabytes above 0, not "${value}".`);
  return Math.round(parsed * 1024 * 1024);
}

/** A switch in the environment: `1` or `true` turns it on, anything else leaves it off. */
const isOn = (value: string | undefined) => value === "1" || value === "true";

/** REPOSITE_BASE_IMAGE_NODE, …_PYTHON, …_GO, …_RUNTIME, …_STATIC, …_BUN: a private mirror per logical image. */
function baseImagesFromEnv(env: NodeJS.ProcessEnv): Partial<BaseImages> {
  const names: (keyof BaseImages)[] = ["node", "python", "go", "runtime", "static", "bun"];
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = env[`REPOSITE_BASE_IMAGE_${name.toUpperCase()}`];
      return value ? [[name, value]] : [];
    }),
  );
}

/** An http(s) address, or a start-up error naming the variable. */
function checkedUrl(value: string, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new Error(`[reposite] ${name} must be an http(s) address such as https://ghe.example.com, not "${value}".`);
  }
  return value;
}

/** Fails at start-up, not at the first sealed secret, when the key is malformed. */
function checkedSecretKey(value: string): string {
  parseSecretKey(value, "REPOSITE_SECRET_KEY");
  return value;
}

/**
 * Reads the reference server's settings from environment variables (the README's table).
 * Every one has an embedded default, so an empty environment runs a working server.
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const listen = { port: port(env.PORT, 3000), hostname: env.HOST || "127.0.0.1" };
  const local = `localhost:${listen.port}`;
  const mailFrom = env.REPOSITE_MAIL_FROM || "Reposite <no-reply@localhost>";
  // Without OPENAI_API_KEY or OPENAI_BASE_URL, pages are written by the README author.
  const languageModel = languageModelFromEnv(env);
  return {
    listen,
    trustProxy: isOn(env.REPOSITE_TRUST_PROXY),
    discourse: discourseFromEnv(env),
    reposite: {
      config: {
        baseUrl: (env.REPOSITE_BASE_URL || `http://${local}`).replace(/\/+$/, ""),
        sitesDomain: env.REPOSITE_SITES_DOMAIN || local,
        dataDir: env.REPOSITE_DATA_DIR || ".reposite",
        mailFrom,
        operatorEmails: list(env.REPOSITE_OPERATORS ?? "").map((email) => email.toLowerCase()),
        baseImages: baseImagesFromEnv(env),
        allowPrivateFetch: isOn(env.REPOSITE_ALLOW_PRIVATE_FETCH),
        ...(env.REPOSITE_SITE_CACHE_MB ? { siteCacheBytes: megabytes(env.REPOSITE_SITE_CACHE_MB, "REPOSITE_SITE_CACHE_MB") } : {}),
      },
      ...(languageModel ? { languageModel } : {}),
      // Without SMTP_URL, mail goes to <data>/outbox (the embedded default).
      ...(env.SMTP_URL ? { mailer: createSmtpMailer({ url: env.SMTP_URL, from: mailFrom }) } : {}),
      ...(env.REPOSITE_SECRET_KEY ? { secretKey: checkedSecretKey(env.REPOSITE_SECRET_KEY) } : {}),
      ...(env.REPOSITE_GITHUB_CLIENT_ID && env.REPOSITE_GITHUB_CLIENT_SECRET
        ? {
            githubOAuth: {
              clientId: env.REPOSITE_GITHUB_CLIENT_ID,
              clientSecret: env.REPOSITE_GITHUB_CLIENT_SECRET,
              ...(env.REPOSITE_GITHUB_WEB_URL ? { webUrl: env.REPOSITE_GITHUB_WEB_URL } : {}),
            },
          }
        : {}),
      // IndexNow is on when the operator gives a key; the endpoint defaults to api.indexnow.org.
      ...(env.REPOSITE_INDEXNOW_KEY
        ? {
            searchNotifier: createIndexNowNotifier({
              key: env.REPOSITE_INDEXNOW_KEY,
              ...(env.REPOSITE_INDEXNOW_ENDPOINT ? { endpoint: env.REPOSITE_INDEXNOW_ENDPOINT } : {}),
            }),
          }
        : {}),
      ...(env.REPOSITE_GIT_HOSTS ? { gitHosts: list(env.REPOSITE_GIT_HOSTS) } : {}),
      // Folders of this machine people may make projects from; never any path a user names.
      ...(env.REPOSITE_LOCAL_REPOS ? { localRepos: list(env.REPOSITE_LOCAL_REPOS) } : {}),
      // Links are accepted on the web address (REPOSITE_GITHUB_WEB_URL, default github.com); the API
      // address may be a mirror, a proxy or an Enterprise server's /api/v3.
      github: {
        ...(env.REPOSITE_GITHUB_API_URL ? { apiUrl: env.REPOSITE_GITHUB_API_URL } : {}),
        ...(env.REPOSITE_GITHUB_WEB_URL ? { webUrl: checkedUrl(env.REPOSITE_GITHUB_WEB_URL, "REPOSITE_GITHUB_WEB_URL") } : {}),
        ...(env.REPOSITE_GITHUB_TOKEN ? { token: env.REPOSITE_GITHUB_TOKEN } : {}),
      },
    },
  };
}
