import type { z } from "zod";
import type { ErrorCode } from "./errors.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Who may call an operation: a bearer token, anybody, or the payment provider (signed webhook). */
export type OperationAuth = "token" | "none" | "webhook";

/** One documented answer. No schema: an empty body (204) or a body that is not JSON (see contentType). */
export interface OperationAnswer {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`; e.g. `text/plain` for logs, `text/event-stream` for job streams. */
  contentType?: string;
}

/**
 * One endpoint of the HTTP API. The path uses h3's `:name` placeholders (the OpenAPI document
 * turns them into `{name}`); `params`, `query` and `body` are what the server validates the request
 * with, `answers` what it may answer with a success status. Error answers share one shape
 * (`errorSchema`); `errors` names the codes this operation may give, for the reference.
 */
export interface Operation {
  /** Unique, `resource.verb`: becomes the OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  path: string;
  /** The resource group (OpenAPI tag), e.g. "Projects". */
  tag: string;
  summary: string;
  auth: OperationAuth;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  answers: Readonly<Record<number, OperationAnswer>>;
  errors?: readonly ErrorCode[];
}

/** Keeps the literal types of an operation (its schemas, its statuses) for typed handlers and clients. */
export function defineOperation<const O extends Operation>(operation: O): O {
  return operation;
}

/** What a successful call of `O` answers with `status` (by default its first documented one). */
export type AnswerOf<O extends Operation, S extends keyof O["answers"] = keyof O["answers"]> =
  O["answers"][S] extends { schema: infer T extends z.ZodType } ? z.output<T> : undefined;

/** The body a caller sends to `O` (its input type: defaults may be left out). */
export type BodyOf<O extends Operation> = O["body"] extends z.ZodType ? z.input<O["body"]> : undefined;

/** The query a caller sends to `O`. */
export type QueryOf<O extends Operation> = O["query"] extends z.ZodObject ? z.input<O["query"]> : undefined;
