import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { Connection } from "../settings.js";
import { success } from "../tool-result.js";
import { siteId } from "./inputs.js";

export function registerPublishingTools(server: McpServer, connection: Connection): void {
  defineTool(server, connection, {
    name: "publish_site",
    title: "Publish the site",
    description:
      "Puts every generated page live at https://<slug>.<sites domain> (sign-in at /auth) with sitemap, robots.txt and link " +
      "previews; free. Give `slug` to choose the address (3-60 characters of a-z, 0-9, -); without one, a project that has " +
      "none gets one from its name. Answers the site's url and the pages live. Needs generate_site first.",
    inputSchema: {
      site_id: siteId,
      slug: z.string().optional().describe("The address to publish at; also renames an already published site."),
    },
    annotations: { idempotentHint: true },
    async run({ site_id, slug }, { client, signal }) {
      if (slug) await client.publishing.setSlug(site_id, slug, { signal });
      const published = await client.publishing.publish(site_id, {}, { signal });
      const warnings = (published.warnings ?? []).map((warning) => ` Warning: ${warning.message}`).join("");
      return success(`Published at ${published.url} (${published.pages.join(", ")}).${warnings}`, { site_id, ...published });
    },
  });
}
