import { z } from "zod";
import type { Operation } from "./operation.js";
import { errorSchema } from "./schemas/error.js";

export interface OpenApiInfo {
  title?: string;
  version: string;
  /** The server's base URL, listed under `servers`. */
  serverUrl?: string;
}

type JsonSchema = Record<string, unknown>;

/** `/app/sites/:site_id` -> `/app/sites/{site_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, "{$1}");
}

/**
 * The OpenAPI 3.1 document of `operations`. OpenAPI 3.1 schemas are JSON Schema 2020-12, which is
 * what zod writes; schemas with a `.meta({id})` become shared components.
 */
export function openApiDocument(operations: readonly Operation[], info: OpenApiInfo): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const schemaOf = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
    const written = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", reused: "inline" });
    // Shared schemas (those with a `.meta({id})`) move from the schema's own $defs to the components.
    const json = JSON.parse(JSON.stringify(written).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    for (const [id, def] of Object.entries(defs)) components[id] ??= def;
    delete json.$defs;
    delete json.$schema;
    return json;
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [["path", op.params], ["query", op.query]] as const) {
      if (!schema) continue;
      for (const [name, field] of Object.entries(schema.shape)) {
        const fieldSchema = field as z.ZodType;
        parameters.push({
          name,
          in: where,
          required: where === "path" || !fieldSchema.safeParse(undefined).success,
          schema: schemaOf(fieldSchema, "input"),
          ...(fieldSchema.description ? { description: fieldSchema.description } : {}),
        });
      }
    }
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(op.answers)) {
      const type = answer.contentType ?? "application/json";
      responses[status] = {
        description: answer.description,
        ...(answer.schema ? { content: { [type]: { schema: schemaOf(answer.schema, "output") } } } : answer.contentType ? { content: { [type]: {} } } : {}),
      };
    }
    responses.default = {
      description: `An error${op.errors?.length ? `; codes: ${op.errors.join(", ")}` : ""}`,
      content: { "application/json": { schema: schemaOf(errorSchema, "output") } },
    };
    (paths[openApiPath(op.path)] ??= {})[op.method.toLowerCase()] = {
      operationId: op.id,
      tags: [op.tag],
      summary: op.summary,
      ...(op.auth === "token" ? {} : { security: [] }),
      ...(parameters.length ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: !op.body.safeParse(undefined).success, content: { "application/json": { schema: schemaOf(op.body, "input") } } } } : {}),
      responses,
    };
  }

  return {
    openapi: "3.1.0",
    info: { title: info.title ?? "Reposite API", version: info.version },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: components,
    },
  };
}
