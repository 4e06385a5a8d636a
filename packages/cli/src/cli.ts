import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty";
import { accountCommands } from "./commands/index.js";
import type { CommandEnv } from "./command.js";
import { EXIT, EXIT_CODES_HELP, failureOf, UsageError } from "./exit-codes.js";
import { OPERATOR_COMMANDS, operatorCommandsForHelp, runOperatorCommand } from "./operator-commands.js";
import { processIo, type CliIo } from "./output.js";
import { CLI_VERSION } from "./version.js";

export type { CliIo } from "./output.js";

function rootCommand(env: CommandEnv): CommandDef {
  return defineCommand({
    meta: {
      name: "reposite",
      version: CLI_VERSION,
      description: "Reposite from the command line: a repository in, a product website and a running app out",
    },
    subCommands: { ...accountCommands(env), ...operatorCommandsForHelp },
  });
}

/**
 * Runs one command line; resolves to the exit code (see EXIT). Options go after the command
 * (`reposite sites list --json`); `--help` works after any command.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  if ((OPERATOR_COMMANDS as readonly string[]).includes(argv[0] ?? "")) return runOperatorCommand(argv, io);
  let exitCode: number = EXIT.ok;
  const root = rootCommand({ io, exit: (code) => (exitCode = code) });
  const [named, known] = await namedCommand(root, argv);
  const json = argv.includes("--json");
  try {
    if (argv.includes("--help") || argv.includes("-h") || (argv.length === 1 && argv[0] === "help") || argv.length === 0) {
      io.out(await usage(named, named === root));
      return EXIT.ok;
    }
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
      io.out(CLI_VERSION);
      return EXIT.ok;
    }
    // A word that names no command: citty would take it as an argument of the last one known.
    if (known < argv.length && !argv[known]!.startsWith("-") && (await hasSubCommands(named))) {
      throw new UsageError(`Unknown command: ${argv.slice(0, known + 1).join(" ")}`);
    }
    if (known === 0 || (await hasSubCommands(named))) {
      throw new UsageError(known === 0 ? `Options go after the command: reposite <command> ${argv.join(" ")}` : "No command specified.");
    }
    await runCommand(root, { rawArgs: argv });
    return exitCode;
  } catch (error) {
    const usageError = error instanceof UsageError || (error as Error).name === "CLIError";
    const failure = usageError
      ? { message: plain((error as Error).message), exitCode: EXIT.usage, code: "usage", status: null }
      : failureOf(error);
    if (json) io.err(JSON.stringify({ error: failure.message, code: failure.code, status: failure.status }));
    else if (usageError) io.err(`${failure.message}\n\n${await usage(named, named === root)}`);
    else io.err(`reposite: ${failure.message}`);
    return failure.exitCode;
  }
}

/** A command's help; the root's ends with what the exit codes mean. */
async function usage(command: CommandDef, isRoot: boolean): Promise<string> {
  const text = (await renderUsage(command)).replace(/[ \t]+$/gm, "");
  return isRoot ? `${text}\n\n${EXIT_CODES_HELP}` : text;
}

/** The deepest command the words of `argv` name, and how many words that took. */
async function namedCommand(root: CommandDef, argv: string[]): Promise<[CommandDef, number]> {
  let command = root;
  let used = 0;
  for (const word of argv) {
    if (word.startsWith("-")) break;
    const next = (await resolve(command.subCommands))?.[word];
    if (!next) break;
    command = await resolve(next);
    used += 1;
  }
  return [command, used];
}

async function hasSubCommands(command: CommandDef): Promise<boolean> {
  return Object.keys((await resolve(command.subCommands)) ?? {}).length > 0;
}

async function resolve<T>(value: T | Promise<T> | (() => T) | (() => Promise<T>)): Promise<T> {
  return typeof value === "function" ? (value as () => T | Promise<T>)() : value;
}

function plain(text: string): string {
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}
