import type { DnsRecord } from "@reposite/sdk";
import { defineCommand } from "citty";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { table, type Output } from "../output.js";
import { SITE_ARG } from "./sites.js";

/** `reposite domain set|verify|get|remove`: the site on a domain of its own. */
export function domainCommand(env: CommandEnv) {
  const set = cliCommand(env, {
    name: "reposite domain set",
    description: "Connect a domain to the site; prints the DNS records to add",
    args: { site: SITE_ARG, domain: { type: "positional", required: true, description: "the domain, for example www.example.com" } },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.domain.set(site.id, args.domain);
      out.result(view, () => {
        out.line(`Add these records at ${view.domain_unicode ?? view.domain}'s DNS provider, then run reposite domain verify ${args.site}:`);
        printRecords(out, view.records);
      });
    },
  });

  const verify = cliCommand(env, {
    name: "reposite domain verify",
    description: "Check the domain's DNS now",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.domain.verify(site.id);
      out.result(view, () => out.line(view.dns.message));
      // Not found yet is an answer, not a failure of the command: scripts read `dns.found`.
    },
  });

  const get = cliCommand(env, {
    name: "reposite domain get",
    description: "Show the site's domain, its records and whether it is live",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      const view = await client.domain.get(site.id);
      out.result(view, () => {
        if (!view.domain) return out.line("No domain; connect one with reposite domain set <site> <domain>.");
        out.line(`${view.domain_unicode ?? view.domain}: ${view.verified ? "verified" : "not verified yet"}, ${view.live ? `live at ${view.live_url}` : `not live${view.live_reason ? ` (${view.live_reason})` : ""}`}`);
        printRecords(out, view.records);
      });
    },
  });

  const remove = cliCommand(env, {
    name: "reposite domain remove",
    description: "Remove the site's domain (its own address keeps working)",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      await client.domain.remove(site.id);
      out.result({ site_id: site.id, removed: true }, () => out.line(`Removed the domain of ${site.name}.`));
    },
  });

  return defineCommand({
    meta: { name: "reposite domain", description: "The site on its own domain: set, verify, get, remove" },
    subCommands: { set, verify, get, remove },
  });
}

function printRecords(out: Output, records: DnsRecord[]): void {
  for (const line of table([["TYPE", "HOST", "VALUE"], ...records.map((record) => [record.type, record.host, record.value])])) out.line(`  ${line}`);
}
