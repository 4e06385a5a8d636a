import { createReposite, neededImages, PAYMENT_PROVIDER, TOKEN_LIFETIMES, type TokenLifetime } from "@reposite/core";
import { DEFAULT_NETWORK_HOLDER_IMAGE, detectDockerRuntime } from "@reposite/provider-docker";
import { defineCommand, renderUsage, runCommand, type ArgsDef, type CommandDef } from "citty";
import { runMigrate, runMigrateStorage } from "./admin/storage-migration.js";
import { remoteEdgeSettingsFromEnv, settingsFromEnv } from "./config-from-env.js";
import { startRemoteEdge } from "./edge/remote/index.js";
import { exitOnUnexpectedErrors } from "./process-guards.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, startServer } from "./start-server.js";
import { SERVER_VERSION } from "./version.js";

/** Output hooks, so tests can run the CLI in-process. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const processIo: CliIo = {
  out: (line) => process.stdout.write(`${plainUnlessTerminal(line, process.stdout)}\n`),
  err: (line) => process.stderr.write(`${plainUnlessTerminal(line, process.stderr)}\n`),
};

/** A wrong command line: the usage of the command it names follows the message. Exit code 2. */
class UsageError extends Error {}


/** Builds the command tree; `io` is where commands write. */
function commands(io: CliIo): CommandDef {
  const serve = defineCommand({
    meta: {
      name: "reposite serve",
      description: "Run the server; settings are environment variables (PORT, HOST, REPOSITE_…: see the README)",
    },
    args: {},
    run: async ({ rawArgs }) => {
      refuseUnknown(rawArgs, {});
      exitOnUnexpectedErrors(io.err);
      const settings = settingsFromEnv();
      const server = await startServer({ settings });
      const { config } = server.reposite;
      io.out(`Reposite listening on ${server.url}${server.httpsUrl ? ` and ${server.httpsUrl} (HTTPS, certificates from ACME)` : ""}`);
      io.out(`  account page (sign in, API tokens): ${config.baseUrl}/account`);
      io.out(`  API: ${config.baseUrl} (reference: ${config.baseUrl}/docs/api)`);
      io.out(`  sites: ${new URL(config.baseUrl).protocol}//<slug>.${config.sitesDomain}`);
      io.out(`  data: ${config.dataDir}`);
      io.out(`  app hosting: ${server.hosting}`);
      io.out(`  edge: ${server.edge ?? "none: Reposite serves every request itself (REPOSITE_EDGE=nginx puts nginx in front)"}`);
      const payments = server.reposite.container.resolve(PAYMENT_PROVIDER);
      io.out(`  payments: ${payments.enabled ? `on (${payments.name})` : "off: everything is free (no STRIPE_SECRET_KEY)"}`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          io.out(`Received ${signal}, shutting down.`);
          // startServer's close is bounded by the same timeout; this is the backstop should anything still hold the process.
          const shutdownMs = settings.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
          setTimeout(() => {
            io.err(`[reposite] shutting down took longer than ${shutdownMs / 1000} s (REPOSITE_SHUTDOWN_TIMEOUT_SECONDS); exiting now.`);
            process.exit(1);
          }, shutdownMs).unref();
          server.close().then(resolve, (error: unknown) => {
            io.err(`[reposite] shutting down failed: ${(error as Error).stack ?? String(error)}`);
            resolve();
          });
        };
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGINT", () => stop("SIGINT"));
      });
    },
  });

  const edge = defineCommand({
    meta: {
      name: "reposite edge",
      description:
        "Run nginx on an edge machine, fed by control-plane servers (REPOSITE_CONTROL_PLANES, REPOSITE_EDGE_TOKEN, PORT, HOST, REPOSITE_DATA_DIR: see docs/deploy/edge-nginx.md)",
    },
    args: {},
    run: async ({ rawArgs }) => {
      refuseUnknown(rawArgs, {});
      exitOnUnexpectedErrors(io.err);
      const settings = remoteEdgeSettingsFromEnv();
      const edge = await startRemoteEdge(settings);
      io.out(`Reposite edge listening on http://${settings.listen.hostname.includes(":") ? `[${settings.listen.hostname}]` : settings.listen.hostname}:${settings.listen.port}`);
      io.out(`  edge: ${edge.description}`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          io.out(`Received ${signal}, shutting down.`);
          setTimeout(() => {
            io.err(`[reposite] shutting down took longer than ${settings.shutdownMs / 1000} s (REPOSITE_SHUTDOWN_TIMEOUT_SECONDS); exiting now.`);
            process.exit(1);
          }, settings.shutdownMs + 1_000).unref();
          edge.close().then(resolve, (error: unknown) => {
            io.err(`[reposite] shutting down failed: ${(error as Error).stack ?? String(error)}`);
            resolve();
          });
        };
        process.once("SIGTERM", () => stop("SIGTERM"));
        process.once("SIGINT", () => stop("SIGINT"));
      });
    },
  });

  const createTokenArgs = {
    email: { type: "string", description: "the account's email (required); the account is made when new", valueHint: "address" },
    name: { type: "string", description: "what will use the token, shown in the token list (required)", valueHint: "name" },
    expires: { type: "string", description: `lifetime: ${TOKEN_LIFETIMES.join(", ")}`, default: "90d", valueHint: "lifetime" },
  } satisfies ArgsDef;
  const createToken = defineCommand({
    meta: {
      name: "reposite admin create-token",
      description: "Create an API token (and the account when new); prints only the secret",
    },
    args: createTokenArgs,
    run: async ({ rawArgs, args }) => {
      refuseUnknown(rawArgs, createTokenArgs);
      if (!args.email || !args.name) throw new UsageError("--email and --name are required.");
      if (!TOKEN_LIFETIMES.includes(args.expires as TokenLifetime)) {
        throw new UsageError(`--expires must be one of ${TOKEN_LIFETIMES.join(", ")}.`);
      }
      const reposite = createReposite(settingsFromEnv().reposite);
      try {
        const { account, created } = await reposite.accounts.findOrCreate(args.email);
        const { secret } = await reposite.tokens.create(account.id, {
          name: args.name,
          lifetime: args.expires as TokenLifetime,
          source: "operator",
        });
        if (created) io.err(`Created account ${account.email} (${account.id}).`);
        io.out(secret);
      } finally {
        await reposite.close();
      }
    },
  });

  const listAccounts = defineCommand({
    meta: { name: "reposite admin list-accounts", description: "List every account: id, email, creation time (tab-separated)" },
    args: {},
    run: async ({ rawArgs }) => {
      refuseUnknown(rawArgs, {});
      const reposite = createReposite(settingsFromEnv().reposite);
      try {
        for (const account of await reposite.accounts.list()) io.out(`${account.id}\t${account.email}\t${account.created_at}`);
      } finally {
        await reposite.close();
      }
    },
  });

  const images = defineCommand({
    meta: {
      name: "reposite admin images",
      description:
        "List the base images builds start from (REPOSITE_BASE_IMAGE_*, REPOSITE_BARE_IMAGES) and the network holders' image (REPOSITE_NETWORK_HOLDER_IMAGE), and whether the Docker Engine has each: image, present or missing, what uses it (tab-separated)",
    },
    args: {},
    run: async ({ rawArgs }) => {
      refuseUnknown(rawArgs, {});
      const settings = settingsFromEnv();
      const runtime = await detectDockerRuntime();
      if (!runtime) throw new Error(`no Docker Engine answered at ${process.env.DOCKER_HOST || "/var/run/docker.sock"}.`);
      const list = await neededImages(runtime, {
        baseImages: settings.reposite.config?.baseImages,
        bareImages: settings.reposite.hosting?.bareImages,
        networkHolderImage: settings.networkHolderImage === undefined ? DEFAULT_NETWORK_HOLDER_IMAGE : settings.networkHolderImage,
      });
      for (const { image, present, uses } of list) io.out(`${image}\t${present ? "present" : "missing"}\t${uses.join(", ")}`);
      const missing = list.filter((each) => !each.present).length;
      // A build pulls what the engine lacks, which fails on a server without registry access.
      io.err(
        missing === 0
          ? `All ${list.length} images are on the Docker Engine.`
          : `${missing} of ${list.length} images are missing: a build that needs one pulls it, which fails without registry access. Load them (docker save where a registry is reachable, docker load here) or point the settings at images the engine has; see docs/auto-builds.md.`,
      );
    },
  });

  const adminIo = { ...io, usageError: (message: string) => new UsageError(message) };
  const migrateArgs = {
    database: { type: "string", description: "the PostgreSQL database; default: REPOSITE_DATABASE_URL", valueHint: "postgres://…" },
  } satisfies ArgsDef;
  const migrateCommand = defineCommand({
    meta: { name: "reposite admin migrate", description: "Bring the PostgreSQL schema up to date; prints the steps applied (none when it is)" },
    args: migrateArgs,
    run: async ({ rawArgs, args }) => {
      refuseUnknown(rawArgs, migrateArgs);
      await runMigrate(args.database || process.env.REPOSITE_DATABASE_URL, adminIo);
    },
  });
  const migrateStorageArgs = {
    from: { type: "string", description: "the data directory of the single-machine installation (its REPOSITE_DATA_DIR)", valueHint: "dir" },
    to: { type: "string", description: "the PostgreSQL database to copy its records to", valueHint: "postgres://…" },
  } satisfies ArgsDef;
  const migrateStorage = defineCommand({
    meta: {
      name: "reposite admin migrate-storage",
      description: "Copy every record of a data directory to PostgreSQL (again: changes nothing); prints counts per prefix on both sides, fails when they differ",
    },
    args: migrateStorageArgs,
    run: async ({ rawArgs, args }) => {
      refuseUnknown(rawArgs, migrateStorageArgs);
      await runMigrateStorage({ from: args.from, to: args.to }, adminIo);
    },
  });

  const admin = defineCommand({
    meta: { name: "reposite admin", description: "Operator tasks on the data directory (REPOSITE_DATA_DIR), the database and the Docker Engine" },
    subCommands: { "create-token": createToken, "list-accounts": listAccounts, images, migrate: migrateCommand, "migrate-storage": migrateStorage },
  });

  return defineCommand({
    meta: {
      name: "reposite",
      version: SERVER_VERSION,
      description: "Reposite: a repository link in, a product website out",
    },
    subCommands: { serve, edge, admin },
  });
}

/**
 * Runs one CLI command; resolves to the exit code (`serve` resolves when the server has stopped):
 * 0 done (help and version included), 1 the command failed, 2 the command line is wrong.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const root = commands(io);
  const [named, known] = await namedCommand(root, argv);
  try {
    if (argv.includes("--help") || argv.includes("-h") || (argv.length === 1 && argv[0] === "help")) {
      io.out(await usage(named));
      return 0;
    }
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
      io.out(SERVER_VERSION);
      return 0;
    }
    if (argv.length === 0) {
      io.out(await usage(root));
      return 0;
    }
    // A word that names no command: citty would take it as an argument of the last one known.
    if (known < argv.length && !argv[known]!.startsWith("-") && (await hasSubCommands(named))) {
      throw new UsageError(`Unknown command: ${argv.slice(0, known + 1).join(" ")}`);
    }
    await runCommand(root, { rawArgs: argv });
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as Error).name === "CLIError") {
      io.err(`${(error as Error).message}\n\n${await usage(named)}`);
      return 2;
    }
    io.err(`reposite: ${(error as Error).message}`);
    return 1;
  }
}

/** A command's help text, without the padding citty leaves at line ends. */
async function usage(command: CommandDef): Promise<string> {
  return (await renderUsage(command)).replace(/[ \t]+$/gm, "");
}

/** The deepest command the words of `argv` name, and how many words that took. */
async function namedCommand(root: CommandDef, argv: string[]): Promise<[CommandDef, number]> {
  let command = root;
  let used = 0;
  for (const word of argv) {
    if (word.startsWith("-")) break;
    const subCommands = await resolve(command.subCommands);
    const next = subCommands?.[word];
    if (!next) break;
    command = await resolve(next);
    used += 1;
  }
  return [command, used];
}

async function hasSubCommands(command: CommandDef): Promise<boolean> {
  return Object.keys((await resolve(command.subCommands)) ?? {}).length > 0;
}

/** Options the command does not have are refused, so a typo never silently does nothing. */
function refuseUnknown(rawArgs: string[], args: ArgsDef): void {
  const known = new Set(Object.keys(args));
  for (const word of rawArgs) {
    if (word === "--") break;
    if (!word.startsWith("-")) continue;
    const name = word.replace(/^--?/, "").split("=")[0]!;
    if (!known.has(name)) throw new UsageError(`Unknown option: ${word.split("=")[0]}`);
  }
  const extra = rawArgs.filter((word, index) => !word.startsWith("-") && !isOptionValue(rawArgs, index, args));
  if (extra.length > 0) throw new UsageError(`Unexpected argument: ${extra[0]}`);
}

function isOptionValue(rawArgs: string[], index: number, args: ArgsDef): boolean {
  const previous = rawArgs[index - 1];
  if (!previous?.startsWith("-") || previous.includes("=")) return false;
  const definition = args[previous.replace(/^--?/, "")];
  return definition?.type === "string" || definition?.type === "enum";
}

async function resolve<T>(value: T | Promise<T> | (() => T) | (() => Promise<T>)): Promise<T> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}

/** citty colours its usage unless NO_COLOR is set; a pipe or a file gets plain text. */
function plainUnlessTerminal(text: string, stream: NodeJS.WriteStream): string {
  return stream.isTTY ? text : text.replace(/\x1b\[[0-9;]*m/g, "");
}
