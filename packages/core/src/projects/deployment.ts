/** States of a project's hosted app: the contract's list, so the API's enum and the records' agree. */
export { DEPLOYMENT_STATUSES, type DeploymentStatus } from "@reposite/contract";
