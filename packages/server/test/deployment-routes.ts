/** Every deployment route: method, path under the project, and a body for the ones that take one. */
export const DEPLOYMENT_ROUTES: [string, string, unknown?][] = [
  ["PUT", "/deployment", {}],
  ["GET", "/deployment"],
  ["DELETE", "/deployment"],
  ["PUT", "/deployment/env", { env: { A: "b" } }],
  ["GET", "/deployment/env"],
  ["POST", "/deployment/deploy"],
  ["GET", "/deployment/runs"],
  ["GET", "/deployment/runs/run_abc"],
  ["POST", "/deployment/restart"],
  ["POST", "/deployment/stop"],
  ["POST", "/deployment/start"],
  ["GET", "/deployment/resources"],
  ["GET", "/deployment/logs?tail=10"],
  ["GET", "/deployment/metrics"],
  ["POST", "/deployment/reset-data", { confirm: "x" }],
];
