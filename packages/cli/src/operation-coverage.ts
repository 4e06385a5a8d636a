import { OPERATIONS_NOT_FOR_CLIENTS, type ClientOperationId, type OperationId } from "@reposite/sdk";

/** The command that performs an operation (`sites list`), or why no command does. */
export type CommandCoverage = { command: string } | { none: string };

const LATER = "No command yet: use the SDK (or the API) for it.";

/** This client's own lines: every operation except those no client offers. */
const COMMANDS: Record<ClientOperationId, CommandCoverage> = {
  "docs.markdown": { none: "The reference for people, at /docs/api; reposite --help covers the commands." },
  "openapi.get": { none: "For code generators." },
  "projects.create": { command: "sites create" },
  "projects.list": { command: "sites list" },
  "projects.get": { command: "sites get" },
  "projects.update": { none: LATER },
  "projects.delete": { none: LATER },
  "designs.list": { none: LATER },
  "repohost.lookup": { none: LATER },
  "repohost.status": { none: LATER },
  "repoCheck.get": { none: LATER },
  "subdomains.check": { none: "reposite publish --slug sets the address and says when it is taken." },
  "publishing.setSlug": { command: "publish" },
  "publishing.publish": { command: "publish" },
  "publishing.publishPage": { none: LATER },
  "members.list": { none: LATER },
  "agent.login": { command: "login" },
  "agent.token": { command: "login" },
  "agent.me": { command: "whoami" },
  "agent.logout": { command: "logout" },
  "generation.start": { command: "generate" },
  "jobs.get": { none: "generate --follow and deploy follow jobs through their stream." },
  "jobs.cancel": { none: LATER },
  "jobs.stream": { command: "generate" },
  "versions.list": { none: LATER },
  "versions.get": { none: LATER },
  "versions.create": { none: LATER },
  "versions.makeCurrent": { none: LATER },
  "deployment.setup": { command: "deploy" },
  "deployment.get": { command: "status" },
  "deployment.remove": { none: LATER },
  "deployment.env.set": { command: "env set" },
  "deployment.env.get": { command: "env list" },
  "deployment.deploy": { command: "deploy" },
  "deployment.runs.list": { none: LATER },
  "deployment.runs.get": { none: "reposite deploy and reposite status show the last run and its diagnosis." },
  "deployment.restart": { none: LATER },
  "deployment.stop": { none: LATER },
  "deployment.start": { none: LATER },
  "deployment.resources": { none: LATER },
  "deployment.fix": { none: LATER },
  "deployment.override.remove": { none: LATER },
  "deployment.logs": { command: "logs" },
  "deployment.metrics": { none: LATER },
  "deployment.reset-data": { none: LATER },
  "domain.set": { command: "domain set" },
  "domain.verify": { command: "domain verify" },
  "domain.get": { command: "domain get" },
  "domain.remove": { command: "domain remove" },
};

/**
 * Every operation of the API and the command that does it, or why none does: COMMANDS above, and
 * the operations no client offers (OPERATIONS_NOT_FOR_CLIENTS, shared with the MCP server). A new
 * operation in the contract is a type error here until it gets a line in one of the two; the
 * client-coverage test checks that the commands named exist.
 */
export const COMMAND_FOR_OPERATION: Record<OperationId, CommandCoverage> = { ...OPERATIONS_NOT_FOR_CLIENTS, ...COMMANDS };
