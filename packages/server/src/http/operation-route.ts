import type { Operation } from "@reposite/contract";
import { parseInput, RepositeError, type Reposite } from "@reposite/core";
import { getQuery, getRouterParams, type H3, type H3Event } from "h3";
import type { z } from "zod";
import { requireToken } from "./auth.js";
import { DEFAULT_BODY_LIMIT, readJsonBody } from "./json-body.js";

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The request of `O`, validated by its schemas: what a handler works with. */
export interface OperationInput<O extends Operation> {
  params: Out<O["params"]>;
  query: Out<O["query"]>;
  body: Out<O["body"]>;
}

export interface OperationRouteOptions {
  /** Largest JSON body, in bytes; default 1 MB. */
  bodyLimit?: number;
}

/**
 * Checking answers against the contract costs a parse per answer, so it is on only where the
 * answers are being proved: the test suite sets REPOSITE_CHECK_ANSWERS=1, and every API test then
 * fails on an answer its operation does not document.
 */
export const checkAnswers = () => process.env.REPOSITE_CHECK_ANSWERS === "1";

/** The Reposite each app's contract-bound routes authenticate with (set by createApp). */
const composition = new WeakMap<H3, Reposite>();

/** Tells `app`'s contract-bound routes which Reposite checks their tokens. */
export function useRepositeForOperations(app: H3, reposite: Reposite): void {
  composition.set(app, reposite);
}

/**
 * Mounts `operation` on `app`: params, query and body are validated with the operation's schemas
 * (a wrong one is `422 invalid_request` naming the field) before `handler` runs. The route's
 * `meta.operation` names the operation, for the contract's coverage test.
 */
export function operationRoute<O extends Operation>(
  app: H3,
  operation: O,
  handler: (event: H3Event, input: OperationInput<O>) => unknown,
  options: OperationRouteOptions = {},
): void {
  if (operation.auth === "token" && !composition.has(app)) {
    throw new Error(`${operation.id} checks tokens: call useRepositeForOperations(app, reposite) before mounting it.`);
  }
  app.on(operation.method, operation.path, async (event) => {
    // A call without a valid token is `401` whatever else is wrong with it.
    if (operation.auth === "token") await requireToken(composition.get(app)!, event);
    const input = {
      params: operation.params ? parseInput(operation.params, getRouterParams(event)) : undefined,
      query: operation.query ? parseInput(operation.query, getQuery(event)) : undefined,
      body: operation.body ? parseInput(operation.body, await readJsonBody(event, options.bodyLimit ?? DEFAULT_BODY_LIMIT)) : undefined,
    } as OperationInput<O>;
    const answer = await handler(event, input);
    if (checkAnswers()) checkAnswer(operation, event, answer);
    return answer;
  }, { meta: { operation: operation.id } });
}

/** Throws when `answer` (with the status the handler set) is not one the operation documents. */
function checkAnswer(operation: Operation, event: H3Event, answer: unknown): void {
  const status = answer instanceof Response ? answer.status : (event.res.status ?? 200);
  const documented = operation.answers[status];
  const fail = (why: string) => {
    throw new RepositeError(500, `${operation.method} ${operation.path} (${operation.id}) answered ${status} against its contract: ${why}`, "answer_mismatch");
  };
  if (!documented) return fail(`status ${status} is not documented`);
  if (answer instanceof Response) {
    const type = answer.headers.get("content-type") ?? "";
    if (documented.contentType && !type.startsWith(documented.contentType)) fail(`content type ${type}, documented ${documented.contentType}`);
    return;
  }
  if (!documented.schema) {
    if (answer !== null && answer !== undefined && answer !== "") fail("a body where none is documented");
    return;
  }
  const result = documented.schema.safeParse(answer);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    fail(`${issue.path.map(String).join(".") || "(body)"}: ${issue.message}`);
  }
}
