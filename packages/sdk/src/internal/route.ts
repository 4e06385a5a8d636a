import type { HttpMethod } from "./retry.js";
import { API_OPERATIONS } from "../generated/contract.js";
import { path } from "./path.js";

/** The id of an operation of the API (`projects.get`), as the contract names it. */
export type OperationId = keyof typeof API_OPERATIONS;

type PathOf<Id extends OperationId> = (typeof API_OPERATIONS)[Id]["path"];
/** `/app/sites/:site_id/runs/:run_id` -> `"site_id" | "run_id"`. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
/** The values an operation's path takes, by name; none for a path without placeholders. */
export type PathParams<Id extends OperationId> = [ParamNames<PathOf<Id>>] extends [never] ? [] : [Record<ParamNames<PathOf<Id>>, string>];

/** The method and the filled-in path of one call. */
export interface Route {
  method: HttpMethod;
  path: string;
}

/**
 * The method and path of operation `id`, taken from the contract (src/generated/contract.ts), with
 * each `:name` of its path filled in from `params` and percent-encoded (see `path`).
 */
export function route<Id extends OperationId>(id: Id, ...[params]: PathParams<Id>): Route {
  const { method, path: template } = API_OPERATIONS[id];
  // split with a capturing group: literal, name, literal, name, …, literal.
  const parts = template.split(/:([A-Za-z_]\w*)/);
  const strings = parts.filter((_, i) => i % 2 === 0);
  const values = parts.filter((_, i) => i % 2 === 1).map((name) => (params as Record<string, string> | undefined)?.[name] as string);
  return { method, path: path(Object.assign(strings, { raw: strings }) as TemplateStringsArray, ...values) };
}
