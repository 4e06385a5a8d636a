import type { Operation } from "../operation.js";
import * as service from "./service.js";
import * as projects from "./projects.js";
import * as designs from "./designs.js";
import * as repoAccess from "./repo-access.js";
import * as publishing from "./publishing.js";
import * as members from "./members.js";
import * as tokens from "./tokens.js";
import * as agent from "./agent.js";
import * as generation from "./generation.js";
import * as jobs from "./jobs.js";
import * as pageVersions from "./page-versions.js";
import * as deployment from "./deployment.js";
import * as deploymentFix from "./deployment-fix.js";
import * as deploymentOperations from "./deployment-operations.js";
import * as billing from "./billing.js";
import * as domain from "./domain.js";
import * as edge from "./edge.js";

export * from "./service.js";
export * from "./projects.js";
export * from "./designs.js";
export * from "./repo-access.js";
export * from "./publishing.js";
export * from "./members.js";
export * from "./tokens.js";
export * from "./agent.js";
export * from "./generation.js";
export * from "./jobs.js";
export * from "./page-versions.js";
export * from "./deployment.js";
export * from "./deployment-fix.js";
export * from "./deployment-operations.js";
export * from "./billing.js";
export * from "./domain.js";
export * from "./edge.js";

/**
 * Every operation of the API. Each resource file exports its operations (and nothing else that is
 * an object with an `id` and a `path`); they are listed here so the server, the OpenAPI document
 * and the coverage test see the same set.
 */
export const OPERATIONS: readonly Operation[] = ([...Object.values(service), ...Object.values(projects), ...Object.values(designs), ...Object.values(repoAccess), ...Object.values(publishing), ...Object.values(members), ...Object.values(tokens), ...Object.values(agent), ...Object.values(generation), ...Object.values(jobs), ...Object.values(pageVersions), ...Object.values(deployment), ...Object.values(deploymentFix), ...Object.values(deploymentOperations), ...Object.values(billing), ...Object.values(domain), ...Object.values(edge)] as unknown[]).filter(isOperation);

function isOperation(value: unknown): value is Operation {
  return typeof value === "object" && value !== null && "id" in value && "path" in value && "method" in value && "answers" in value;
}
