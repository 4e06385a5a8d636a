export {
  createClient,
  RepositeClient,
  LOCAL_SERVER_URL,
  type ClientOptions,
  type RequestOptions,
  type FinalRequestOptions,
  type MethodRequestOptions,
  type QueryValue,
  type HttpMethod,
} from "./client.js";
export { APIResource } from "./resource.js";
export { Sites } from "./resources/sites.js";
export { Designs } from "./resources/designs.js";
export { Agent, type AgentLogin } from "./resources/agent.js";
export { Tokens } from "./resources/tokens.js";
export { Versions } from "./resources/versions.js";
export { Jobs, type JobStreamOptions, type JobChainOptions } from "./resources/jobs.js";
export { Publishing } from "./resources/publishing.js";
export { Domain } from "./resources/domain.js";
export { Deployment, DeploymentEnv, DeploymentRuns } from "./resources/deployment.js";
export { Billing } from "./resources/billing.js";
export { Members } from "./resources/members.js";
export { Repohost } from "./resources/repohost.js";
export { Subdomains } from "./resources/subdomains.js";
export { path } from "./internal/path.js";
export { route, type OperationId, type Route } from "./internal/route.js";
export { OPERATIONS_WITHOUT_METHOD } from "./operations-without-method.js";
export { OPERATIONS_NOT_FOR_CLIENTS, type ClientOperationId } from "./operations-not-for-clients.js";
// What clients offer as choices, and every operation's method and path, copied from the contract.
export { API_OPERATIONS, PROJECT_TYPES, PAGE_KINDS, PLAN_PAGES, BUILD_MODES, BARE_BASE_IMAGES } from "./generated/contract.js";
export {
  RepositeSDKError,
  RepositeAPIError,
  BadRequestError,
  AuthenticationError,
  PaymentRequiredError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  GoneError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
} from "./errors.js";
export type * from "./types.js";
export type { ApiErrorCode, ErrorCode } from "./error-codes.js";
