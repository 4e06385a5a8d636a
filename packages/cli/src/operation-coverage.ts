import type { OperationId } from "@reposite/sdk";

/** The command that performs an operation (`sites list`), or why no command does. */
export type CommandCoverage = { command: string } | { none: string };

const BROWSER = "A person does it in a browser (signing in, tokens, paying and authorising the code host are for people).";
const NOT_FOR_ACCOUNTS = "Not called for an account: a proxy, a monitor or the payment provider calls it.";
const LATER = "No command yet: use the SDK (or the API) for it.";

/**
 * Every operation of the API and the command that does it, or why none does. A new operation in
 * the contract is a type error here until it gets a line; the client-coverage test checks that
 * the commands named exist.
 */
export const COMMAND_FOR_OPERATION: Record<OperationId, CommandCoverage> = {
  "health.check": { none: NOT_FOR_ACCOUNTS },
  "docs.markdown": { none: "The reference for people, at /docs/api; reposite --help covers the commands." },
  "openapi.get": { none: "For code generators." },
  "projects.create": { command: "sites create" },
  "projects.list": { command: "sites list" },
  "projects.get": { command: "sites get" },
  "projects.update": { none: LATER },
  "projects.delete": { none: LATER },
  "designs.list": { none: LATER },
  "repohost.lookup": { none: LATER },
  "repohost.connect": { none: BROWSER },
  "repohost.status": { none: LATER },
  "repohost.disconnect": { none: BROWSER },
  "repohost.callback": { none: BROWSER },
  "repoCheck.get": { none: LATER },
  "subdomains.check": { none: "reposite publish --slug sets the address and says when it is taken." },
  "publishing.setSlug": { command: "publish" },
  "publishing.publish": { command: "publish" },
  "publishing.publishPage": { none: LATER },
  "members.list": { none: LATER },
  "tokens.list": { none: BROWSER },
  "tokens.revoke": { none: BROWSER },
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
  "billing.prices": { none: BROWSER },
  "billing.statuses": { none: BROWSER },
  "billing.account.summary": { none: BROWSER },
  "billing.webhook": { none: NOT_FOR_ACCOUNTS },
  "billing.status": { none: BROWSER },
  "billing.checkout": { none: BROWSER },
  "billing.confirm": { none: BROWSER },
  "domain.set": { command: "domain set" },
  "domain.verify": { command: "domain verify" },
  "domain.get": { command: "domain get" },
  "domain.remove": { command: "domain remove" },
  "tls.ask": { none: NOT_FOR_ACCOUNTS },
  "edge.routes": { none: NOT_FOR_ACCOUNTS },
  "edge.site": { none: NOT_FOR_ACCOUNTS },
  "edge.certificate": { none: NOT_FOR_ACCOUNTS },
  "edge.visits": { none: NOT_FOR_ACCOUNTS },
};
