import {
  BARE_BASE_IMAGES,
  BASE_IMAGE_NAMES,
  baseImageSetting,
  createIndexNowNotifier,
  parseSecretKey,
  type BareBaseImage,
  type BaseImages,
  type CreateRepositeOptions,
  type DiscourseOptions,
  type HostingSettings,
} from "@reposite/core";
import { isIP } from "node:net";
import { resolve } from "node:path";
import { languageModelFromEnv } from "@reposite/provider-ai";
import { createSmtpMailer } from "@reposite/provider-smtp";
import { paymentsFromEnv } from "@reposite/provider-stripe";
import { parseDenyCidrs } from "@reposite/provider-docker";
import { createPostgresPorts, isPostgresUrl } from "@reposite/provider-postgres";
import { swarmOptionsFromEnv, type SwarmOptions } from "@reposite/provider-swarm";
import { discourseFromEnv } from "./site-runtime/dynamic/discourse-env.js";
import { EDGE_FEED_SETTINGS, EDGE_TOKEN_MIN_LENGTH, type RemoteEdgeOptions } from "./edge/remote/index.js";
import { nginxPlacementFromEnv, type NginxPlacement } from "./edge/nginx-container.js";
import { swarmReach } from "./swarm-runtime.js";
import { LETS_ENCRYPT_DIRECTORY, type AcmeSettings } from "./tls/built-in-acme.js";

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
  /**
   * `detect`: at start, host apps on Docker when its Engine answers (`DOCKER_HOST` or the default
   * socket); `off` (REPOSITE_HOSTING=off): no app hosting. Left out: only a `containerRuntime` given
   * in `reposite` hosts apps.
   */
  hosting?: "detect" | "off";
  /**
   * Where apps run (REPOSITE_RUNTIME): `docker` (the default) on this machine's Engine, or `swarm`:
   * services on Docker Swarm through a manager's Engine, images pushed to REPOSITE_REGISTRY, with
   * provider-swarm's settings (`swarmOptionsFromEnv`, docs/deploy/swarm.md).
   */
  runtime?: { kind: "swarm"; swarm: SwarmOptions };
  /**
   * The server terminates TLS itself (REPOSITE_HTTPS_PORT): an HTTPS listener serving certificates
   * by SNI, ordered over ACME (HTTP-01 on the HTTP port, which must be port 80 to the world) for
   * every verified custom domain. Left out: plain HTTP only (Caddy or another proxy in front).
   */
  https?: HttpsSettings;
  /**
   * IPv4 ranges hosted apps may not reach (REPOSITE_APP_DENY_CIDRS), besides what the app firewall
   * always refuses: the host's own addresses, other apps and 169.254.0.0/16 (docs/deploy/app-network.md).
   */
  appDenyCidrs?: string[];
  /**
   * The image of the idle containers that hold each app's place on its network, so a deploy's
   * container starts without the Engine's network setup (REPOSITE_NETWORK_HOLDER_IMAGE; `off` turns
   * them off): provider-docker's `registry.k8s.io/pause:3.10` when absent, used while the Engine has it.
   */
  networkHolderImage?: string | null;
  /**
   * SIGTERM to exit at most this long (REPOSITE_SHUTDOWN_TIMEOUT_SECONDS, default 10 s): requests
   * under way may finish during most of it, then whatever is still open is closed.
   */
  shutdownTimeoutMs?: number;
  /**
   * `nginx` (REPOSITE_EDGE=nginx): nginx listens on `PORT`, serves `/app/` of running apps itself
   * and sends the rest to this process on an internal loopback port (docs/deploy/edge-nginx.md).
   * Left out: this process serves everything.
   */
  edge?: "nginx";
  /**
   * Where the edge's nginx runs (REPOSITE_EDGE_NGINX): the machine's binary (`host`), or a container
   * on the Engine (`container`, the default with REPOSITE_RUNTIME=swarm) that joins the apps' overlay
   * networks and reaches this process on a Unix socket under the data directory.
   */
  edgeNginx?: NginxPlacement;
}

/** Where HTTPS listens and where its certificates come from. */
export interface HttpsSettings {
  port: number;
  /** Default: the HTTP listener's. */
  hostname?: string;
  acme: AcmeSettings;
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

/** REPOSITE_BASE_IMAGE_NODE, …_PYTHON, …_GO, …_RUNTIME, …_STATIC, …_BUN, …_RUST, …_DENO: a private mirror per logical image. */
function baseImagesFromEnv(env: NodeJS.ProcessEnv): Partial<BaseImages> {
  return Object.fromEntries(
    BASE_IMAGE_NAMES.flatMap((name) => {
      const value = env[baseImageSetting(name)];
      return value ? [[name, value]] : [];
    }),
  );
}

/** A whole number of at least `min`, or a start-up error naming the variable. */
function wholeNumber(value: string, name: string, min = 1): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) throw new Error(`[reposite] ${name} must be a whole number of at least ${min}, not "${value}".`);
  return parsed;
}

/**
 * App hosting's limits: REPOSITE_BUILD_CONCURRENCY, REPOSITE_BUILD_MEMORY_MB,
 * REPOSITE_BUILD_TIMEOUT_MINUTES; REPOSITE_BARE_IMAGES maps bare-box choices to this server's images
 * (`alpine:3.20=mirror.example/alpine:3.20,…`); REPOSITE_APP_LABELS adds labels to everything the
 * server makes on the engine (`key=value,…`), and it then finds only its own apps at start;
 * REPOSITE_DISK_LIMIT_MB is each app's disk (image, writable layer and volume; 3072 by default) and
 * REPOSITE_DISK_CHECK_SECONDS how often running apps are measured (60).
 */
function hostingFromEnv(env: NodeJS.ProcessEnv): Partial<HostingSettings> {
  const pairs = (value: string, name: string) =>
    list(value).map((pair) => {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`[reposite] ${name} takes name=value pairs separated by commas, not "${pair}".`);
      return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const;
    });
  const bareImages = pairs(env.REPOSITE_BARE_IMAGES ?? "", "REPOSITE_BARE_IMAGES");
  for (const [choice] of bareImages) {
    if (!(BARE_BASE_IMAGES as readonly string[]).includes(choice)) {
      throw new Error(`[reposite] REPOSITE_BARE_IMAGES names "${choice}"; the bare-box images are ${BARE_BASE_IMAGES.join(", ")}.`);
    }
  }
  return {
    ...(env.REPOSITE_BUILD_CONCURRENCY ? { buildConcurrency: wholeNumber(env.REPOSITE_BUILD_CONCURRENCY, "REPOSITE_BUILD_CONCURRENCY") } : {}),
    ...(env.REPOSITE_BUILD_MEMORY_MB ? { buildMemoryMb: wholeNumber(env.REPOSITE_BUILD_MEMORY_MB, "REPOSITE_BUILD_MEMORY_MB", 64) } : {}),
    ...(env.REPOSITE_BUILD_TIMEOUT_MINUTES ? { buildTimeoutMs: wholeNumber(env.REPOSITE_BUILD_TIMEOUT_MINUTES, "REPOSITE_BUILD_TIMEOUT_MINUTES") * 60_000 } : {}),
    ...(bareImages.length ? { bareImages: Object.fromEntries(bareImages) as Partial<Record<BareBaseImage, string>> } : {}),
    ...(env.REPOSITE_APP_LABELS ? { labels: Object.fromEntries(pairs(env.REPOSITE_APP_LABELS, "REPOSITE_APP_LABELS")) } : {}),
    ...(env.REPOSITE_DISK_LIMIT_MB ? { diskLimitMb: wholeNumber(env.REPOSITE_DISK_LIMIT_MB, "REPOSITE_DISK_LIMIT_MB") } : {}),
    ...(env.REPOSITE_DISK_CHECK_SECONDS ? { diskCheckIntervalMs: wholeNumber(env.REPOSITE_DISK_CHECK_SECONDS, "REPOSITE_DISK_CHECK_SECONDS") * 1000 } : {}),
    // Replicas on one database: a replica silent this long is dead and its runs are taken over (15 by default).
    ...(env.REPOSITE_REPLICA_LEASE_SECONDS ? { replicaLeaseMs: wholeNumber(env.REPOSITE_REPLICA_LEASE_SECONDS, "REPOSITE_REPLICA_LEASE_SECONDS", 2) * 1000 } : {}),
  };
}

/** REPOSITE_RUNTIME: `docker` (or nothing) hosts apps on this machine's Engine; `swarm` on a Swarm (its settings read here, so a bad one stops the start). */
function runtimeFromEnv(env: NodeJS.ProcessEnv): Pick<ServerSettings, "runtime"> {
  const value = env.REPOSITE_RUNTIME;
  if (value === undefined || value === "" || value === "docker") return {};
  if (value !== "swarm") throw new Error(`[reposite] REPOSITE_RUNTIME must be docker (the default: this machine's Engine) or swarm (services on Docker Swarm), not "${value}".`);
  return { runtime: { kind: "swarm", swarm: swarmOptionsFromEnv(env) } };
}

/** REPOSITE_EDGE with where its nginx runs, and the runtime with how the edge reaches Swarm apps (checked together). */
function edgeAndRuntimeFromEnv(env: NodeJS.ProcessEnv): Pick<ServerSettings, "runtime" | "edge" | "edgeNginx"> {
  const { runtime } = runtimeFromEnv(env);
  const edgeNginx = edgeSwitch(env.REPOSITE_EDGE) ? nginxPlacementFromEnv(env, { swarm: runtime?.kind === "swarm" }) : undefined;
  return {
    ...(runtime ? { runtime: { kind: "swarm", swarm: swarmReach(runtime.swarm, edgeNginx) } } : {}),
    ...(edgeNginx ? { edge: "nginx" as const, edgeNginx } : {}),
  };
}

/** REPOSITE_HOSTING: `off` turns app hosting off; anything else (or nothing) looks for Docker at start. */
function hostingSwitch(value: string | undefined): "detect" | "off" {
  if (value === undefined || value === "" || value === "docker" || value === "on") return "detect";
  if (value === "off" || value === "0" || value === "false") return "off";
  throw new Error(`[reposite] REPOSITE_HOSTING must be off (no app hosting) or docker (the default: Docker when its Engine answers), not "${value}".`);
}

function edgeSwitch(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "off" || value === "none") return false;
  if (value === "nginx") return true;
  throw new Error(`[reposite] REPOSITE_EDGE must be nginx (nginx in front, fed by Reposite) or left out (Reposite serves everything), not "${value}".`);
}

/** REPOSITE_EDGE_TOKEN: the secret edges and control planes share; long enough not to be guessed. */
function edgeToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.REPOSITE_EDGE_TOKEN;
  if (token === undefined || token === "") return undefined;
  if (token.length < EDGE_TOKEN_MIN_LENGTH || /\s/.test(token)) {
    throw new Error(`[reposite] REPOSITE_EDGE_TOKEN must be at least ${EDGE_TOKEN_MIN_LENGTH} characters without spaces (for example: openssl rand -hex 32).`);
  }
  return token;
}

/** A control plane turns the edge feed on with REPOSITE_EDGE_TOKEN (`/edge/…`, docs/deploy/edge-nginx.md). */
function edgeFeedFromEnv(env: NodeJS.ProcessEnv): Pick<CreateRepositeOptions, "register"> {
  const token = edgeToken(env);
  return token ? { register: (container) => void container.register(EDGE_FEED_SETTINGS, { useValue: { token } }) } : {};
}

/**
 * `reposite edge`'s settings: REPOSITE_CONTROL_PLANES (http addresses, comma-separated) and
 * REPOSITE_EDGE_TOKEN are required; HOST/PORT are where its nginx listens (and REPOSITE_HTTPS_PORT,
 * for the control planes' built-in ACME certificates); its files live in
 * `<REPOSITE_DATA_DIR>/edge`; REPOSITE_TRUST_PROXY and REPOSITE_SHUTDOWN_TIMEOUT_SECONDS as for `serve`.
 */
export function remoteEdgeSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): Omit<RemoteEdgeOptions, "binary"> {
  const token = edgeToken(env);
  if (!token) throw new Error("[reposite] reposite edge needs REPOSITE_EDGE_TOKEN: the same secret as the control planes' (at least 32 characters).");
  const controlPlanes = list(env.REPOSITE_CONTROL_PLANES ?? "").map((address) => {
    if (!/^http:\/\/[^/?#]+\/?$/.test(address) || !URL.canParse(address)) {
      throw new Error(`[reposite] REPOSITE_CONTROL_PLANES must list control planes' http addresses without a path, such as http://10.0.0.5:3000,http://10.0.0.6:3000, not "${address}".`);
    }
    return address.replace(/\/$/, "");
  });
  if (controlPlanes.length === 0) throw new Error("[reposite] reposite edge needs REPOSITE_CONTROL_PLANES: the http addresses of one or more control-plane servers (reposite serve with REPOSITE_EDGE_TOKEN).");
  return {
    dir: resolve(env.REPOSITE_DATA_DIR || ".reposite", "edge"),
    listen: { port: port(env.PORT, 3000), hostname: env.HOST || "127.0.0.1" },
    controlPlanes,
    token,
    trustProxy: isOn(env.REPOSITE_TRUST_PROXY),
    // The certificates come from the control planes' built-in ACME: only the port is the edge's own.
    ...(env.REPOSITE_HTTPS_PORT ? { tls: { listen: { port: httpsFromEnv({ REPOSITE_HTTPS_PORT: env.REPOSITE_HTTPS_PORT })!.port, hostname: env.HOST || "127.0.0.1" } } } : {}),
    shutdownMs: env.REPOSITE_SHUTDOWN_TIMEOUT_SECONDS ? wholeNumber(env.REPOSITE_SHUTDOWN_TIMEOUT_SECONDS, "REPOSITE_SHUTDOWN_TIMEOUT_SECONDS") * 1000 : 10_000,
  };
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

/** An IPv4 or IPv6 address, or a start-up error naming the variable. */
function checkedAddress(value: string, name: string, family: 4 | 6): string {
  if (isIP(value) !== family) throw new Error(`[reposite] ${name} must be an IPv${family} address, such as ${family === 4 ? "203.0.113.7" : "2001:db8::7"}, not "${value}".`);
  return value;
}

/** DNS servers (`1.1.1.1`, `127.0.0.1:5353`, `[2001:db8::53]:53`), or a start-up error naming the variable. */
function dnsServers(value: string): string[] {
  return list(value).map((server) => {
    const bare = server.startsWith("[") ? server.slice(1, server.indexOf("]")) : server.replace(/:\d+$/, "");
    if (isIP(bare) === 0) throw new Error(`[reposite] REPOSITE_DNS_SERVERS takes IP addresses (with an optional :port), separated by commas, not "${server}".`);
    return server;
  });
}

/** A public port of the live check (`443`), or null for `off`. */
function publicPort(value: string, name: string): number | null {
  if (value === "off") return null;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) throw new Error(`[reposite] ${name} must be a port from 1 to 65535, or off, not "${value}".`);
  return parsed;
}

/**
 * Custom domains: REPOSITE_PUBLIC_IPV4 / REPOSITE_PUBLIC_IPV6 are the addresses bare domains point
 * to; REPOSITE_DNS_SERVERS the servers DNS checks ask (default: the system's);
 * REPOSITE_PUBLIC_HTTPS_PORT / REPOSITE_PUBLIC_HTTP_PORT where visitors reach the server (443 and
 * 80), which the live check connects to.
 */
function domainsFromEnv(env: NodeJS.ProcessEnv): Pick<CreateRepositeOptions, "dns" | "domains"> {
  return {
    ...(env.REPOSITE_DNS_SERVERS ? { dns: { servers: dnsServers(env.REPOSITE_DNS_SERVERS) } } : {}),
    domains: {
      ...(env.REPOSITE_PUBLIC_HTTPS_PORT ? { liveHttpsPort: publicPort(env.REPOSITE_PUBLIC_HTTPS_PORT, "REPOSITE_PUBLIC_HTTPS_PORT") } : {}),
      ...(env.REPOSITE_PUBLIC_HTTP_PORT ? { liveHttpPort: publicPort(env.REPOSITE_PUBLIC_HTTP_PORT, "REPOSITE_PUBLIC_HTTP_PORT") } : {}),
    },
  };
}

/**
 * REPOSITE_DATABASE_URL (`postgres://…`): records, locks and job events on PostgreSQL, shared by
 * every replica on it (docs/deploy/postgres.md). Left out: files under the data directory.
 */
function databaseFromEnv(env: NodeJS.ProcessEnv): Pick<CreateRepositeOptions, "storage" | "locks" | "events"> {
  const url = env.REPOSITE_DATABASE_URL;
  if (!url) return {};
  if (!isPostgresUrl(url)) throw new Error(`[reposite] REPOSITE_DATABASE_URL must be a PostgreSQL address such as postgres://reposite:secret@db.internal:5432/reposite, not "${url.replace(/\/\/[^@/]*@/, "//…@")}".`);
  const { storage, locks, events } = createPostgresPorts({ url });
  return { storage, locks, events };
}

/** Fails at start-up, not at the first sealed secret, when the key is malformed. */
function checkedSecretKey(value: string): string {
  parseSecretKey(value, "REPOSITE_SECRET_KEY");
  return value;
}

/**
 * Built-in ACME: REPOSITE_HTTPS_PORT turns it on; REPOSITE_ACME_DIRECTORY_URL (Let's Encrypt
 * production by default), REPOSITE_ACME_EMAIL, REPOSITE_ACME_CA_FILE (a test CA's certificate, for
 * the directory's own HTTPS), REPOSITE_ACME_RENEW_DAYS (30) and REPOSITE_ACME_HOSTNAMES (names
 * besides custom domains, the service's own host) tune it and need it on.
 */
function httpsFromEnv(env: NodeJS.ProcessEnv): HttpsSettings | undefined {
  const acmeVariables = ["REPOSITE_ACME_DIRECTORY_URL", "REPOSITE_ACME_EMAIL", "REPOSITE_ACME_CA_FILE", "REPOSITE_ACME_RENEW_DAYS", "REPOSITE_ACME_HOSTNAMES"];
  if (!env.REPOSITE_HTTPS_PORT) {
    const stray = acmeVariables.find((name) => env[name]);
    if (stray) throw new Error(`[reposite] ${stray} is set but REPOSITE_HTTPS_PORT is not: built-in ACME serves its certificates on the HTTPS port (443 to the world). Set it, or unset ${stray}.`);
    return undefined;
  }
  const httpsPort = Number(env.REPOSITE_HTTPS_PORT);
  if (!Number.isInteger(httpsPort) || httpsPort < 0 || httpsPort > 65_535) {
    throw new Error(`[reposite] REPOSITE_HTTPS_PORT must be a whole number from 0 to 65535, not "${env.REPOSITE_HTTPS_PORT}".`);
  }
  const email = env.REPOSITE_ACME_EMAIL;
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`[reposite] REPOSITE_ACME_EMAIL must be an email address, not "${email}".`);
  return {
    port: httpsPort,
    acme: {
      directoryUrl: env.REPOSITE_ACME_DIRECTORY_URL ? checkedUrl(env.REPOSITE_ACME_DIRECTORY_URL, "REPOSITE_ACME_DIRECTORY_URL") : LETS_ENCRYPT_DIRECTORY,
      ...(email ? { email } : {}),
      ...(env.REPOSITE_ACME_CA_FILE ? { caFile: env.REPOSITE_ACME_CA_FILE } : {}),
      ...(env.REPOSITE_ACME_RENEW_DAYS ? { renewBeforeDays: wholeNumber(env.REPOSITE_ACME_RENEW_DAYS, "REPOSITE_ACME_RENEW_DAYS") } : {}),
      ...(env.REPOSITE_ACME_HOSTNAMES ? { hostnames: list(env.REPOSITE_ACME_HOSTNAMES).map((name) => name.toLowerCase()) } : {}),
    },
  };
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
  // Without STRIPE_SECRET_KEY, payments are off and everything is free (the embedded freePayments).
  const payments = paymentsFromEnv(env);
  const https = httpsFromEnv(env);
  return {
    listen,
    trustProxy: isOn(env.REPOSITE_TRUST_PROXY),
    discourse: discourseFromEnv(env),
    hosting: hostingSwitch(env.REPOSITE_HOSTING),
    ...edgeAndRuntimeFromEnv(env),
    ...(env.REPOSITE_APP_DENY_CIDRS ? { appDenyCidrs: parseDenyCidrs(env.REPOSITE_APP_DENY_CIDRS) } : {}),
    ...(env.REPOSITE_NETWORK_HOLDER_IMAGE ? { networkHolderImage: env.REPOSITE_NETWORK_HOLDER_IMAGE === "off" ? null : env.REPOSITE_NETWORK_HOLDER_IMAGE } : {}),
    ...(https ? { https } : {}),
    ...(env.REPOSITE_SHUTDOWN_TIMEOUT_SECONDS ? { shutdownTimeoutMs: wholeNumber(env.REPOSITE_SHUTDOWN_TIMEOUT_SECONDS, "REPOSITE_SHUTDOWN_TIMEOUT_SECONDS") * 1000 } : {}),
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
        ...(env.REPOSITE_PUBLIC_IPV4 ? { publicIpv4: checkedAddress(env.REPOSITE_PUBLIC_IPV4, "REPOSITE_PUBLIC_IPV4", 4) } : {}),
        ...(env.REPOSITE_PUBLIC_IPV6 ? { publicIpv6: checkedAddress(env.REPOSITE_PUBLIC_IPV6, "REPOSITE_PUBLIC_IPV6", 6) } : {}),
      },
      ...domainsFromEnv(env),
      ...databaseFromEnv(env),
      ...edgeFeedFromEnv(env),
      ...(languageModel ? { languageModel } : {}),
      ...(payments ? { payments } : {}),
      hosting: hostingFromEnv(env),
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
