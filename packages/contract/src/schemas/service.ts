import { z } from "zod";

/** `GET /openapi.json`: an OpenAPI 3.1 document (its parts are open-ended: JSON Schema). */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.string().describe("`3.1.0`"),
  info: z.looseObject({ title: z.string(), version: z.string().describe("The server's version") }),
  servers: z.array(z.looseObject({ url: z.string() })).optional().describe("The server's base URL"),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});
export type OpenApiDocumentView = z.output<typeof openApiDocumentSchema>;
