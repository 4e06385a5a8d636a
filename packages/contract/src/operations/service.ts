import { z } from "zod";
import { defineOperation } from "../operation.js";
import { openApiDocumentSchema } from "../schemas/service.js";

export const healthCheck = defineOperation({
  id: "health.check",
  method: "GET",
  path: "/healthz",
  tag: "Service",
  summary: "Whether the service is up: 200 when its storage answers, 503 `storage_unavailable` otherwise",
  auth: "none",
  answers: {
    200: { description: "The service answers", schema: z.strictObject({ status: z.literal("ok") }) },
    503: {
      description: "Storage does not answer",
      schema: z.strictObject({ status: z.literal("unavailable"), error: z.string(), code: z.literal("storage_unavailable") }),
    },
  },
  errors: ["storage_unavailable"],
});

export const apiReferenceMarkdown = defineOperation({
  id: "docs.markdown",
  method: "GET",
  path: "/docs/api.md",
  tag: "Service",
  summary: "This API's reference (docs/http-api.md) as Markdown; `/docs/api` is the same as a page",
  auth: "none",
  answers: { 200: { description: "The reference", contentType: "text/markdown" } },
  errors: ["not_found"],
});

export const openApi = defineOperation({
  id: "openapi.get",
  method: "GET",
  path: "/openapi.json",
  tag: "Service",
  summary: "This API as an OpenAPI 3.1 document, made from the schemas the server validates requests with",
  auth: "none",
  answers: { 200: { description: "The OpenAPI document", schema: openApiDocumentSchema } },
});
