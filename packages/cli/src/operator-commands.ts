import { defineCommand } from "citty";
import type { CliIo } from "./output.js";
import { EXIT } from "./exit-codes.js";

/** The commands that belong to the server package (@reposite/server), run through its own CLI. */
export const OPERATOR_COMMANDS = ["serve", "admin"] as const;

/** Entries for `reposite --help`; running them goes through `runOperatorCommand`. */
export const operatorCommandsForHelp = {
  serve: defineCommand({ meta: { name: "serve", description: "Run a Reposite server (operators; needs @reposite/server)" } }),
  admin: defineCommand({ meta: { name: "admin", description: "Operator tasks on the server's data (needs @reposite/server)" } }),
};

// A variable, so neither TypeScript nor the bundler goes looking for the optional package.
const SERVER_PACKAGE = "@reposite/server";

/**
 * `serve` and `admin` are the server's: it is an optional peer of this package, loaded only here.
 * Without it installed, says how to get it (exit 2).
 */
export async function runOperatorCommand(argv: string[], io: CliIo): Promise<number> {
  let server: { runCli(argv: string[]): Promise<number> };
  try {
    server = (await import(SERVER_PACKAGE)) as typeof server;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" || !String((error as Error).message).includes(SERVER_PACKAGE)) throw error;
    io.err(
      `reposite ${argv[0]} runs a Reposite server, which is a separate package: install it with\n` +
        `  npm install @reposite/server\n` +
        `or run it once with: npx -p @reposite/server reposite-server ${argv.join(" ")}`,
    );
    return EXIT.usage;
  }
  return server.runCli(argv);
}
