import { z } from "zod";
import { defineOperation } from "../operation.js";

export const healthCheck = defineOperation({
  id: "health.check",
  method: "GET",
  path: "/healthz",
  tag: "Service",
  summary: "Whether the service is up: 200 when its storage answers, 503 `storage_unavailable` otherwise",
  auth: "none",
  answers: { 200: { description: "The service answers", schema: z.strictObject({ status: z.literal("ok") }) } },
  errors: ["storage_unavailable"],
});
