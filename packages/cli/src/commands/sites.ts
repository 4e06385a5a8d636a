import type { ProjectDetailView } from "@reposite/sdk";
import { defineCommand } from "citty";
import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { fields, table, type Output } from "../output.js";

const SITE_ARG = { type: "positional", required: true, description: "the site's id (site_…) or its slug", valueHint: "site" } as const;
export { SITE_ARG };

/** `reposite sites create|list|get`. */
export function sitesCommand(env: CommandEnv) {
  const create = cliCommand(env, {
    name: "reposite sites create",
    description: "Make a site from a repository link",
    args: {
      repo: { type: "positional", required: true, description: "the repository: a web link, a clone URL, or owner/name on GitHub" },
      name: { type: "string", description: "the product's name (default: the repository's)", valueHint: "name" },
      design: { type: "string", description: "a design id (default: picked from the repository)", valueHint: "id" },
    },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await client.sites.create({
        repohost_url: repositoryUrl(args.repo),
        ...(args.name ? { name: args.name } : {}),
        ...(args.design ? { design: args.design } : {}),
      });
      out.result(site, () => {
        out.line(`Created ${site.name} (${site.id}) from ${site.repohost_url}.`);
        out.line(`Next: reposite generate ${site.id} --follow`);
      });
    },
  });

  const list = cliCommand(env, {
    name: "reposite sites list",
    description: "List your sites, newest first",
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const sites = await client.sites.list();
      out.result(sites, () => {
        if (sites.length === 0) return out.line("No sites yet: reposite sites create <repo>");
        const rows = [["ID", "SLUG", "NAME", "APP", "ADDRESS"]];
        for (const site of sites) rows.push([site.id, site.slug ?? "-", site.name, site.app_status ?? "-", site.url ?? "-"]);
        for (const line of table(rows)) out.line(line);
      });
    },
  });

  const get = cliCommand(env, {
    name: "reposite sites get",
    description: "Show one site",
    args: { site: SITE_ARG },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      out.result(site, () => printSite(out, site));
    },
  });

  return defineCommand({
    meta: { name: "reposite sites", description: "Your sites: create, list, get" },
    subCommands: { create, list, get },
  });
}

/** `owner/name` is a GitHub repository; anything else is passed as given. */
function repositoryUrl(repo: string): string {
  return /^[\w.-]+\/[\w.-]+$/.test(repo) ? `https://github.com/${repo}` : repo;
}

export function printSite(out: Output, site: ProjectDetailView): void {
  for (const line of fields([
    ["id", site.id],
    ["name", site.name],
    ["repository", site.repohost_url],
    ["slug", site.slug],
    ["address", site.url],
    ["design", site.design || "automatic"],
    ["plan", site.wizard ? `${site.wizard.mode}: ${["template", ...site.wizard.pages].join(", ")}` : null],
    ["app", site.deployment ? `${site.deployment.status} ${site.deployment.url}` : null],
    ["visits", String(site.visits)],
  ])) out.line(line);
}
