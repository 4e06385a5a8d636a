import { AuthenticationError, createClient } from "@reposite/sdk";
import { cliCommand, type CommandEnv } from "../command.js";
import { configPath, readConfig, writeConfig } from "../config-file.js";
import { connect, namedServer } from "../connection.js";
import { CliError, failureOf } from "../exit-codes.js";
import { fields } from "../output.js";

/** `reposite whoami`: who the token acts as, on which server. */
export function whoamiCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite whoami",
    description: "Show who you are logged in as, and on which server",
    run: async ({ args, out }) => {
      const { client, server } = await connect(args.server);
      const me = await client.agent.me();
      out.result({ server, ...me }, () => {
        for (const line of fields([
          ["email", me.user.email],
          ["server", server],
          ["token", `${me.token.name} (…${me.token.hint}, ${me.token.source})`],
          ["expires", me.token.expires_at ?? "never"],
        ])) out.line(line);
      });
    },
  });
}

/**
 * `reposite logout`: revokes the stored token on its server and forgets it. A token from
 * REPOSITE_TOKEN is the environment's, not this command's: it is left alone.
 */
export function logoutCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite logout",
    description: "Revoke the stored token and forget it",
    run: async ({ args, out }) => {
      const path = configPath();
      const config = await readConfig(path);
      const login = config.login;
      const server = await namedServer(args.server);
      if (!login || (server && server !== login.server)) {
        out.result({ logged_out: false, reason: "not_logged_in" }, () => out.line(`Not logged in${server ? ` to ${server}` : ""}; nothing to do.`));
        return;
      }
      let revokeError: unknown;
      try {
        await createClient({ baseURL: login.server, token: login.token, maxRetries: 1 }).agent.logout();
      } catch (error) {
        // Revoked already (in the browser, say): forgetting it is all that is left to do.
        if (!AuthenticationError.isInstance(error)) revokeError = error;
      }
      delete config.login;
      await writeConfig(config, path);
      if (revokeError) {
        const failure = failureOf(revokeError);
        throw new CliError(
          `Forgot the token, but could not revoke it on ${login.server}: ${failure.message} Revoke it on the account page.`,
          failure.exitCode,
          failure.code,
          failure.status,
        );
      }
      out.result({ logged_out: true, server: login.server, user: login.user }, () => out.line(`Logged out of ${login.server} (${login.user.email}); the token is revoked.`));
      if (process.env.REPOSITE_TOKEN?.trim()) out.note("REPOSITE_TOKEN is still set and still used.");
    },
  });
}
