import { spawn } from "node:child_process";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { CliError, EXIT } from "../exit-codes.js";
import { SITE_ARG } from "./sites.js";

/** `reposite open <site>`: prints the site's address, and opens it in a browser on a terminal. */
export function openCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite open",
    description: "Print the site's address, and open it in a browser when run in a terminal",
    args: {
      site: SITE_ARG,
      app: { type: "boolean", description: "the app's address (<site address>/app/) instead" },
    },
    run: async ({ args, out, io }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const url = args.app ? site.deployment?.url : site.url;
      if (!url) {
        throw new CliError(
          args.app ? `${site.name} has no app yet: reposite deploy ${site.slug ?? site.id}` : `${site.name} has no address yet: reposite publish ${site.id}`,
          EXIT.failed,
          "no_address",
        );
      }
      out.result({ site_id: site.id, url }, () => out.line(url));
      if (!out.json && io.stdoutIsTerminal) openInBrowser(url);
    },
  });
}

/** Asks the desktop to open `url`; with no browser or desktop nothing happens (the address is printed). */
function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  try {
    const child = spawn(command as string, args as string[], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // Printed already.
  }
}
