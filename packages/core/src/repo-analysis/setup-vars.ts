import type { SetupVar } from "./repo-check.js";
import { fromAppJson } from "./settings/app-json.js";
import { classify, isHarmlessValue } from "./settings/classify.js";
import { codeFiles, mentionedInCode } from "./settings/code-files.js";
import { fromCodeReads } from "./settings/code-reads.js";
import { fromCompose } from "./settings/compose-environment.js";
import { fromEnvFiles } from "./settings/env-files.js";
import { fromFrameworks } from "./settings/framework-settings.js";
import type { Mention } from "./settings/mention.js";
import { fromPydanticSettings } from "./settings/pydantic-settings.js";
import { readmeMarks } from "./settings/readme-notes.js";
import { fromZodSchemas } from "./settings/zod-schema.js";
import type { SourceTree } from "./source-tree.js";

export { EXAMPLE_ENV_FILES } from "./settings/env-files.js";
export { isHarmlessValue, isPlaceholder, looksLikeCredential } from "./settings/classify.js";

export interface SetupVarsContext {
  /** The app's own address (ends in `/app/`), the ready value of `APP_URL`-like settings. */
  appUrl: string;
}

/**
 * The settings an app asks for, read from (the first description found wins):
 *
 * 1. `app.json` (Heroku): `env` entries with `description`, `required` (when not given: required
 *    unless it has a `value`), `value`, `generator: "secret"`;
 * 2. example env files `.env.example`, `.env.sample`, `.env.template`, `.env.dist`, `example.env`,
 *    `.env.local.example`, `.env.production.example`, and `.env.schema` (varlock-style `@required`,
 *    `@optional`, `@sensitive`): comments describe and mark keys (see `settings/env-files.ts`);
 * 3. config schemas in the code: zod env schemas (t3-env's `createEnv`, `z.object(…).parse(process.env)`)
 *    and pydantic `BaseSettings` classes: required unless optional or defaulted;
 * 4. reads in the code (`process.env.X`, `os.environ[…]`, `os.getenv`, `os.Getenv`, `Deno.env.get`,
 *    `Bun.env`, `ENV.fetch`, `env::var`… see `settings/code-reads.ts`), judged by the code around them;
 * 5. frameworks that fail without a setting the code never names (next-auth: `AUTH_SECRET`,
 *    `AUTH_TRUST_HOST`; see `settings/framework-settings.ts`);
 * 6. compose files (see `COMPOSE_FILES`): `environment:` of the services that are the app;
 *    `${VAR:?err}` means required, `${VAR:-default}` gives a default.
 *
 * A setting is **required only when the app fails without it**:
 * - it is when a source says so: a schema entry without default, code that stops without it (unless
 *   the README calls it optional), a framework's need, `required: true`, a comment or the README
 *   calling it required;
 * - otherwise a mention that gives no usable default (an example's `KEY=`, a plain read in code)
 *   requires it, unless something says it can be left out: a default or a test in the code, an
 *   optional mark (a comment, `.optional()`, the README calling it optional), a service the app runs
 *   without (error reporting, analytics, e-mail: `SENTRY_*`, `POSTHOG_*`, `SMTP_*`, `MAIL_*`…), or no
 *   code naming it at all when the repository has code to read.
 *
 * Example values of `generate`/`secret` settings, and anything that looks like a credential or a
 * placeholder, are never passed on as `value`.
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
  const code = codeFiles(tree);
  const mentions = [
    ...fromAppJson(tree),
    ...fromEnvFiles(tree),
    ...fromZodSchemas(code),
    ...fromPydanticSettings(code),
    ...fromCodeReads(code),
    ...fromFrameworks(tree),
    ...fromCompose(tree),
  ];

  const byName = new Map<string, Mention[]>();
  for (const mention of mentions) {
    if (!VAR_NAME.test(mention.name) || SERVICE_SET.has(mention.name)) continue;
    byName.set(mention.name, [...(byName.get(mention.name) ?? []), mention]);
  }
  const readme = readmeMarks(tree, [...byName.keys()]);
  const unread = (name: string) => code.length > 0 && !mentionedInCode(code, name);

  const vars = [...byName.entries()].map(([name, list]) => settle(name, list, context, { readme: readme.get(name), unread: unread(name) }));
  return vars.sort((a, b) => Number(b.required) - Number(a.required) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Set by the service itself. */
const SERVICE_SET = new Set(["PORT"]);
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Services an app runs without: error reporting, analytics, tracing, e-mail. */
const RUNS_WITHOUT =
  /^(NEXT_PUBLIC_|VITE_|PUBLIC_|REACT_APP_)?(SENTRY|BUGSNAG|ROLLBAR|HONEYBADGER|DATADOG|DD|NEW_RELIC|NEWRELIC|LOGTAIL|BETTERSTACK|POSTHOG|PLAUSIBLE|UMAMI|MIXPANEL|SEGMENT|AMPLITUDE|GA|GTAG|GTM|GOOGLE_ANALYTICS|HOTJAR|CLARITY|OTEL|OTLP|SMTP|MAIL|MAILER|EMAIL)(_|$)/;

interface Evidence {
  /** What the README says: false optional, true required. */
  readme: boolean | undefined;
  /** The repository has code and none of it names the setting. */
  unread: boolean;
}

function settle(name: string, mentions: Mention[], context: SetupVarsContext, evidence: Evidence): SetupVar {
  const description = mentions.find((mention) => mention.description !== "")?.description ?? "";
  const values = mentions.map((mention) => mention.value).filter((value): value is string => value !== null && value !== "");
  const { input, value } = classify(name, values, mentions, context);
  const usableDefault = (mention: Mention) =>
    mention.value !== null && input === "auto" && isHarmlessValue(mention.value) && mention.value !== "";

  // The README calling a setting optional outweighs a check in the code (which may sit in the one
  // handler that needs it, such as a payment webhook): the owner's word on what the app runs without.
  const needed =
    mentions.some((mention) => mention.required === true && !(mention.source === "code" && evidence.readme === false)) || evidence.readme === true;
  const canBeLeftOut =
    mentions.some((mention) => mention.required === false) ||
    evidence.readme === false ||
    RUNS_WITHOUT.test(name) ||
    evidence.unread;
  const implied = mentions.some((mention) => mention.required === undefined && !usableDefault(mention));
  const required = needed || (!canBeLeftOut && implied);
  return { name, required, description, input, value };
}
