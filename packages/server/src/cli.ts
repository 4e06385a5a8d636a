import { parseArgs } from "node:util";
import { createReposite, TOKEN_LIFETIMES, type TokenLifetime } from "@reposite/core";
import { settingsFromEnv } from "./config-from-env.js";
import { startServer } from "./start-server.js";

const USAGE = `Usage:
  reposite serve                                   run the server (settings from environment variables)
  reposite admin create-token --email <address> --name <name> [--expires 30d|90d|1y|never]
                                                   create a token (and the account when new); prints only the secret
  reposite admin list-accounts                     list every account
`;

/** Output and exit hooks, so tests can run the CLI in-process. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const processIo: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Runs one CLI command; resolves to the exit code (`serve` resolves when the server has stopped). */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, subcommand, ...rest] = argv;
  try {
    if (command === "serve") return await serve(io);
    if (command === "admin" && subcommand === "create-token") return await createToken(rest, io);
    if (command === "admin" && subcommand === "list-accounts") return await listAccounts(io);
    if (command === undefined || command === "help" || command === "--help" || command === "-h") {
      io.out(USAGE);
      return 0;
    }
    io.err(`Unknown command: ${argv.join(" ")}\n\n${USAGE}`);
    return 2;
  } catch (error) {
    io.err(`reposite: ${(error as Error).message}`);
    return 1;
  }
}

async function serve(io: CliIo): Promise<number> {
  const server = await startServer();
  const { config } = server.reposite;
  io.out(`Reposite listening on ${server.url}`);
  io.out(`  API and account pages: ${config.baseUrl}`);
  io.out(`  sites: ${new URL(config.baseUrl).protocol}//<slug>.${config.sitesDomain}`);
  io.out(`  data: ${config.dataDir}`);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      io.out(`Received ${signal}, shutting down.`);
      server.close().then(resolve, resolve);
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  return 0;
}

async function createToken(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { email: { type: "string" }, name: { type: "string" }, expires: { type: "string", default: "90d" } },
    strict: true,
  });
  if (!values.email || !values.name) {
    io.err(`--email and --name are required.\n\n${USAGE}`);
    return 2;
  }
  if (!TOKEN_LIFETIMES.includes(values.expires as TokenLifetime)) {
    io.err(`--expires must be one of ${TOKEN_LIFETIMES.join(", ")}.`);
    return 2;
  }
  const reposite = createReposite(settingsFromEnv().reposite);
  try {
    const { account, created } = await reposite.accounts.findOrCreate(values.email);
    const { secret } = await reposite.tokens.create(account.id, {
      name: values.name,
      lifetime: values.expires as TokenLifetime,
    });
    if (created) io.err(`Created account ${account.email} (${account.id}).`);
    io.out(secret);
    return 0;
  } finally {
    await reposite.close();
  }
}

async function listAccounts(io: CliIo): Promise<number> {
  const reposite = createReposite(settingsFromEnv().reposite);
  try {
    for (const account of await reposite.accounts.list()) io.out(`${account.id}\t${account.email}\t${account.created_at}`);
    return 0;
  } finally {
    await reposite.close();
  }
}
