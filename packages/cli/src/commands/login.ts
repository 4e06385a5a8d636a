import { hostname } from "node:os";
import { BadRequestError, ConflictError, createClient, type AgentLogin, type AgentToken } from "@reposite/sdk";
import { cliCommand, type CommandEnv } from "../command.js";
import { configPath, readConfig, writeConfig } from "../config-file.js";
import { serverAddress } from "../connection.js";
import { CliError, EXIT } from "../exit-codes.js";
import type { Output } from "../output.js";
import { lineReader } from "../read-lines.js";

/**
 * `reposite login`: agent login. The person opens the link, signs in, and reads out the code it
 * shows; the token is stored for the next commands (mode 0600) and never printed unless asked.
 */
export function loginCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite login",
    description: "Log in: prints a link to open, then waits for the code it shows (typed on stdin, or --code)",
    args: {
      email: { type: "string", description: "also mail the sign-in link to this address", valueHint: "address" },
      code: { type: "string", description: "the code, for scripts that got it already (no prompt)", valueHint: "ABCD-EFGH" },
      name: { type: "string", description: "what the token is called in your token list (default: reposite CLI on <host>)", valueHint: "name" },
      "show-token": { type: "boolean", description: "also print the token (for REPOSITE_TOKEN in CI); it is stored either way" },
    },
    run: async ({ args, out, io }) => {
      const server = await serverAddress(args.server);
      const anonymous = createClient({ baseURL: server });
      const login = await anonymous.agent.login({
        client: args.name?.trim() || `reposite CLI on ${hostname()}`,
        ...(args.email ? { email: args.email } : {}),
      });
      if (!args.code) {
        const { request_id, verification_url, expires_in, email_sent, next_step } = login;
        out.event({ request_id, verification_url, expires_in, email_sent, next_step });
        out.line(`To log in to ${server}, open this link, sign in, and type the code it shows:`);
        out.line(`  ${verification_url}`);
        if (login.email_sent) out.line(`(The link was also mailed to ${args.email}.)`);
        else if (login.email_error) out.note(`No email was sent: ${login.email_error}`);
      }
      const issued = args.code ? await login.complete(args.code) : await codeFromStdin(login, out, io);
      const path = configPath();
      const config = await readConfig(path);
      config.login = { server, token: issued.token, token_id: issued.token_id, user: issued.user, expires_at: issued.expires_at };
      await writeConfig(config, path);
      if (process.env.REPOSITE_TOKEN?.trim()) out.note("Note: REPOSITE_TOKEN is set; it is used instead of this login while it is.");
      out.result(
        { server, user: issued.user, token_id: issued.token_id, expires_at: issued.expires_at, config: path, ...(args["show-token"] ? { token: issued.token } : {}) },
        () => {
          out.line(`Logged in to ${server} as ${issued.user.email}; the token is kept in ${path}.`);
          if (args["show-token"]) out.line(issued.token);
        },
      );
    },
  });
}

/** Reads codes line by line until one works; a wrong one (or one typed too early) asks again. */
async function codeFromStdin(login: AgentLogin, out: Output, io: CommandEnv["io"]): Promise<AgentToken> {
  const lines = lineReader(io.stdin);
  try {
    for (;;) {
      if (io.stdinIsTerminal && !out.json) io.writeErr("Code: ");
      const code = await lines.next();
      if (code === undefined) throw new CliError("No code was typed (stdin ended). Run reposite login again, or pass --code.", EXIT.failed, "no_code");
      if (code === "") continue;
      try {
        return await login.complete(code);
      } catch (error) {
        if (BadRequestError.isInstance(error) && error.code === "invalid_code") {
          const left = error.body?.attempts_left;
          out.note(`That code is not the one shown${typeof left === "number" ? ` (${left} ${left === 1 ? "try" : "tries"} left)` : ""}. Type it again.`);
          continue;
        }
        if (ConflictError.isInstance(error) && error.code === "not_opened") {
          out.note("The link has not been opened and continued yet: open it, sign in, press Continue, then type the code.");
          continue;
        }
        throw error;
      }
    }
  } finally {
    lines.close();
  }
}
