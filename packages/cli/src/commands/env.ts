import { defineCommand } from "citty";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { UsageError } from "../exit-codes.js";
import { SITE_ARG } from "./sites.js";

/** `reposite env set|unset|list`: the app's environment. Values are never shown back. */
export function envCommand(env: CommandEnv) {
  const set = cliCommand(env, {
    name: "reposite env set",
    description: "Set environment variables of the app (a running app restarts with them)",
    args: { site: SITE_ARG, pairs: { type: "positional", required: true, description: "one or more KEY=VALUE", valueHint: "KEY=VALUE…" } },
    variadic: true,
    run: async ({ args, rest, out }) => {
      const values: Record<string, string> = {};
      for (const pair of rest) {
        const equals = pair.indexOf("=");
        if (equals < 1) throw new UsageError(`Expected KEY=VALUE, got ${JSON.stringify(pair.split("=")[0])}${equals === 0 ? " with no key" : " without ="}.`);
        values[pair.slice(0, equals)] = pair.slice(equals + 1);
      }
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.deployment.env.set(site.id, values);
      out.result({ site_id: site.id, ...view }, () => out.line(`Set ${Object.keys(values).join(", ")} for ${site.name}.`));
    },
  });

  const unset = cliCommand(env, {
    name: "reposite env unset",
    description: "Remove environment variables of the app",
    args: { site: SITE_ARG, keys: { type: "positional", required: true, description: "one or more names", valueHint: "KEY…" } },
    variadic: true,
    run: async ({ args, rest, out }) => {
      const wrong = rest.find((key) => key.includes("="));
      if (wrong) throw new UsageError(`env unset takes names only, not ${JSON.stringify(wrong.split("=")[0] + "=…")}.`);
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.deployment.env.unset(site.id, rest);
      out.result({ site_id: site.id, ...view }, () => out.line(`Removed ${rest.join(", ")} from ${site.name}.`));
    },
  });

  const list = cliCommand(env, {
    name: "reposite env list",
    description: "List the app's environment variables (values are masked)",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.deployment.env.get(site.id);
      out.result({ site_id: site.id, ...view }, () => {
        const names = Object.keys(view.env).sort();
        if (names.length === 0) return out.line("No environment variables.");
        for (const name of names) out.line(`${name}=${view.env[name]}`);
      });
    },
  });

  return defineCommand({
    meta: { name: "reposite env", description: "The app's environment variables: set, unset, list" },
    subCommands: { set, unset, list },
  });
}
