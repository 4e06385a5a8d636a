import { OPERATIONS_NOT_FOR_CLIENTS, type ClientOperationId, type OperationId } from "@reposite/sdk";

/** The tool that performs an operation, or why no tool does. */
export type ToolCoverage = { tool: string } | { none: string };

const LATER = "No tool yet: an agent does it through the CLI or the SDK.";

/** This client's own lines: every operation except those no client offers. */
const TOOLS: Record<ClientOperationId, ToolCoverage> = {
  "docs.markdown": { none: "The reference for people; the tools' descriptions say what an agent needs." },
  "openapi.get": { none: "For code generators; an agent uses the tools." },
  "projects.create": { tool: "create_project" },
  "projects.list": { tool: "list_projects" },
  "projects.get": { tool: "get_status" },
  "projects.update": { none: LATER },
  "projects.delete": { none: "Deleting is left to the person (CLI, SDK or a browser): an agent should not remove a site." },
  "designs.list": { none: LATER },
  "repohost.lookup": { none: LATER },
  "repohost.status": { none: LATER },
  "repoCheck.get": { none: LATER },
  "subdomains.check": { none: "publish_site sets the address and answers when it is taken." },
  "publishing.setSlug": { tool: "publish_site" },
  "publishing.publish": { tool: "publish_site" },
  "publishing.publishPage": { none: LATER },
  "members.list": { none: LATER },
  "agent.login": { none: "The MCP server is given a token (REPOSITE_TOKEN); logging in is the CLI's reposite login." },
  "agent.token": { none: "The MCP server is given a token (REPOSITE_TOKEN); logging in is the CLI's reposite login." },
  "agent.me": { none: "Every tool acts as the token's account; an agent has no need to ask whose." },
  "agent.logout": { none: "The token belongs to the MCP client's configuration, not to the agent." },
  "generation.start": { tool: "generate_site" },
  "jobs.get": { tool: "generate_site" },
  "jobs.cancel": { none: LATER },
  "jobs.stream": { tool: "deploy_app" },
  "versions.list": { none: LATER },
  "versions.get": { none: LATER },
  "versions.create": { none: LATER },
  "versions.makeCurrent": { none: LATER },
  "deployment.setup": { tool: "deploy_app" },
  "deployment.get": { tool: "get_status" },
  "deployment.remove": { none: "Removing an app and its data is left to the person." },
  "deployment.env.set": { tool: "set_env" },
  "deployment.env.get": { none: "Values are never shown back; get_status lists the names (env_keys)." },
  "deployment.deploy": { tool: "deploy_app" },
  "deployment.runs.list": { none: LATER },
  "deployment.runs.get": { tool: "read_diagnosis" },
  "deployment.restart": { none: LATER },
  "deployment.stop": { none: LATER },
  "deployment.start": { none: LATER },
  "deployment.resources": { none: LATER },
  "deployment.fix": { none: LATER },
  "deployment.override.remove": { none: LATER },
  "deployment.logs": { tool: "read_logs" },
  "deployment.metrics": { none: LATER },
  "deployment.reset-data": { none: "Emptying an app's data cannot be undone: left to the person." },
  "domain.set": { none: LATER },
  "domain.verify": { none: LATER },
  "domain.get": { none: LATER },
  "domain.remove": { none: LATER },
};

/**
 * Every operation of the API and the tool that does it, or why none does: TOOLS above, and
 * the operations no client offers (OPERATIONS_NOT_FOR_CLIENTS, shared with the CLI). A new
 * operation in the contract is a type error here until it gets a line in one of the two; the
 * client-coverage test checks the tools named exist.
 */
export const TOOL_FOR_OPERATION: Record<OperationId, ToolCoverage> = { ...OPERATIONS_NOT_FOR_CLIENTS, ...TOOLS };
