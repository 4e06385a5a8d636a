import { cliCommand, type CommandEnv } from "../command.js";
import { connect, findSite } from "../connection.js";
import { SITE_ARG } from "./sites.js";

/** `reposite publish <site>`: puts the generated pages live at the site's address. */
export function publishCommand(env: CommandEnv) {
  return cliCommand(env, {
    name: "reposite publish",
    description: "Put the site's pages live (free); prints its address",
    args: {
      site: SITE_ARG,
      slug: { type: "string", description: "the address to publish at: https://<slug>.<sites domain> (default: kept, or from the name)", valueHint: "slug" },
      community: { type: "boolean", description: "open the community forum (default: as generated)" },
    },
    run: async ({ args, out }) => {
      const { client } = await connect(args.server);
      const site = await findSite(client, args.site);
      if (args.slug && args.slug !== site.slug) await client.publishing.setSlug(site.id, args.slug);
      const published = await client.publishing.publish(site.id, args.community !== undefined ? { discourse: args.community } : {});
      out.result({ site_id: site.id, ...published }, () => {
        out.line(`Published ${site.name}: ${published.url}`);
        out.line(`  pages: ${published.pages.join(", ")}`);
      });
      // The site is live either way: warnings say what its visitors would run into.
      for (const warning of published.warnings ?? []) {
        out.note(`Warning: ${warning.message}`);
        if (warning.code === "app_not_deployed") out.note(`  Deploy it: reposite deploy ${args.slug || site.slug || site.id}`);
      }
    },
  });
}
