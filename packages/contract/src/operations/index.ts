import type { Operation } from "../operation.js";
import * as health from "./health.js";

export * from "./health.js";

/**
 * Every operation of the API. Each resource file exports its operations; they are listed here so
 * the server, the OpenAPI document and the coverage test see the same set.
 */
export const OPERATIONS: readonly Operation[] = [...Object.values(health)];
