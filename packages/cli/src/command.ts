import { defineCommand, type ArgsDef, type CommandDef, type ParsedArgs } from "citty";
import { DEFAULT_SERVER } from "./connection.js";
import { UsageError } from "./exit-codes.js";
import { Output, type CliIo } from "./output.js";

/** Options every command takes. */
export const COMMON_ARGS = {
  json: { type: "boolean", description: "machine-readable output: JSON on stdout, errors as JSON on stderr" },
  server: {
    type: "string",
    description: `the Reposite server (default: REPOSITE_URL, else the server you logged in to, else ${DEFAULT_SERVER})`,
    valueHint: "url",
  },
} satisfies ArgsDef;

/** What commands are built with: where they write, and where their exit code goes. */
export interface CommandEnv {
  io: CliIo;
  /** Sets the process's exit code (citty does not hand a sub-command's result back). */
  exit(code: number): void;
}

export interface CommandRun<T extends ArgsDef> {
  args: ParsedArgs<T & typeof COMMON_ARGS>;
  /** With `variadic`: every word from the last positional argument on. */
  rest: string[];
  out: Output;
  io: CliIo;
}

export interface CliCommandSpec<T extends ArgsDef> {
  /** The full command, for its usage line: `reposite sites create`. */
  name: string;
  description: string;
  args?: T;
  /** The last positional argument takes every remaining word (`env set <site> KEY=VALUE…`). */
  variadic?: boolean;
  /** Resolves to the exit code; nothing means 0. Errors are turned into exit codes by the caller. */
  run(run: CommandRun<T>): Promise<number | void>;
}

/** A citty command with the common options, strict about unknown options and extra words. */
export function cliCommand<const T extends ArgsDef>(env: CommandEnv, spec: CliCommandSpec<T>): CommandDef {
  const args = { ...spec.args, ...COMMON_ARGS } as T & typeof COMMON_ARGS;
  return defineCommand<ArgsDef>({
    meta: { name: spec.name, description: spec.description },
    args,
    run: async ({ rawArgs, args: parsed }) => {
      const positionals = positionalWords(rawArgs, args);
      const expected = Object.values(args).filter((arg) => arg.type === "positional").length;
      if (!spec.variadic && positionals.length > expected) throw new UsageError(`Unexpected argument: ${positionals[expected]}`);
      const rest = spec.variadic ? positionals.slice(Math.max(0, expected - 1)) : [];
      const out = new Output(env.io, parsed.json === true);
      env.exit((await spec.run({ args: parsed as CommandRun<T>["args"], rest, out, io: env.io })) ?? 0);
    },
  });
}

/** The words that are not options or their values; refuses options the command does not have. */
function positionalWords(rawArgs: string[], args: ArgsDef): string[] {
  const names = new Map<string, ArgsDef[string]>();
  for (const [name, definition] of Object.entries(args)) {
    if (definition.type === "positional") continue;
    names.set(name, definition);
    const aliases = "alias" in definition ? definition.alias : undefined;
    for (const alias of typeof aliases === "string" ? [aliases] : (aliases ?? [])) names.set(alias, definition);
    if (definition.type === "boolean") names.set(`no-${name}`, definition);
  }
  const words: string[] = [];
  for (let index = 0; index < rawArgs.length; index++) {
    const word = rawArgs[index]!;
    if (word === "--") {
      words.push(...rawArgs.slice(index + 1));
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      words.push(word);
      continue;
    }
    const name = word.replace(/^--?/, "").split("=")[0]!;
    const definition = names.get(name);
    if (!definition) throw new UsageError(`Unknown option: ${word.split("=")[0]}`);
    const takesValue = definition.type === "string" || definition.type === "enum";
    if (takesValue && !word.includes("=")) {
      if (index + 1 >= rawArgs.length) throw new UsageError(`${word} needs a value.`);
      index++;
    }
  }
  return words;
}
