import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { defineTool } from "../define-tool.js";
import type { Connection } from "../settings.js";
import { success } from "../tool-result.js";
import { siteId } from "./inputs.js";

export function registerStatusTools(server: McpServer, connection: Connection): void {
  defineTool(server, connection, {
    name: "get_status",
    title: "Read a project's status",
    description:
      "The project's site (name, address, plan, design) and its hosted app (status, url, last deploy and its diagnosis " +
      "when it failed, and last_operation: the last env restart or data reset with its outcome). `app` is null while the project has no app.",
    inputSchema: { site_id: siteId },
    annotations: { readOnlyHint: true },
    async run({ site_id }, { client, signal }) {
      const project = await client.sites.get(site_id, { signal });
      const site = {
        id: project.id,
        name: project.name,
        repository: project.repohost_url,
        slug: project.slug,
        url: project.url,
        plan: project.wizard,
        design: project.design,
        visits: project.visits,
      };
      // The full read only when there is an app: it has the last run and its diagnosis.
      const deployment = project.deployment ? await client.deployment.get(site_id, { signal }) : null;
      const app = deployment && {
        status: deployment.status,
        url: deployment.url,
        last_run: deployment.last_run,
        env_keys: deployment.env_keys,
        stopped_reason: deployment.stopped_reason,
        // An env change answers before its restart: its outcome shows here.
        last_operation: deployment.last_operation,
      };
      const summary = `${project.name}: site ${project.url ?? "has no address yet"}; app ${app ? `${app.status} at ${app.url}` : "not set up"}.`;
      return success(summary, { site, app });
    },
  });
}
