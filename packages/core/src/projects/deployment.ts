/** States of a project's hosted app (the hosting issue builds the pipeline behind them). */
export const DEPLOYMENT_STATUSES = ["configured", "building", "starting", "running", "stopped", "failed"] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
