export * from "./operation.js";
export * from "./openapi.js";
export * from "./schemas/error.js";
export * from "./operations/index.js";
