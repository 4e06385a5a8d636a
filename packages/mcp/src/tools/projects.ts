import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ProjectView } from "@reposite/sdk";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { Connection } from "../settings.js";
import { success } from "../tool-result.js";

/** The fields of a project an agent acts on; the rest is in get_status. */
const brief = (project: ProjectView) => ({
  id: project.id,
  name: project.name,
  repository: project.repohost_url,
  private: project.private,
  design: project.design,
  url: project.url,
  app_status: project.app_status,
});

export function registerProjectTools(server: McpServer, connection: Connection): void {
  defineTool(server, connection, {
    name: "create_project",
    title: "Create a project from a repository",
    description:
      "Creates a Reposite project from a code repository link (any form: web page, clone URL, SSH). " +
      "Answers the project; its `id` is the site_id every other tool takes. Next: generate_site, then publish_site.",
    inputSchema: {
      repository: z.string().min(1).describe("Link to the repository, e.g. https://github.com/acme/rocket-cli."),
      name: z.string().min(1).optional().describe("Product name on every page; defaults to the repository's name."),
      design: z.string().min(1).optional().describe("A design id; left out, the service picks one that suits the repository."),
    },
    async run({ repository, name, design }, { client, signal }) {
      const project = await client.sites.create(
        { repohost_url: repository, ...(name ? { name } : {}), ...(design ? { design } : {}) },
        { signal },
      );
      return success(`Created project ${project.name} (site_id ${project.id}).`, { project: brief(project) });
    },
  });

  defineTool(server, connection, {
    name: "list_projects",
    title: "List projects",
    description: "The caller's projects, newest first: id, name, repository, published address (url) and the hosted app's status.",
    inputSchema: {},
    annotations: { readOnlyHint: true },
    async run(_args, { client, signal }) {
      const projects = await client.sites.list({ signal });
      return success(`${projects.length} project${projects.length === 1 ? "" : "s"}.`, { projects: projects.map(brief) });
    },
  });
}
