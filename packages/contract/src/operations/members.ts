import { defineOperation } from "../operation.js";
import { memberListSchema } from "../schemas/members.js";
import { siteParamsSchema } from "../schemas/projects.js";

export * from "../schemas/members.js";

export const membersList = defineOperation({
  id: "members.list",
  method: "GET",
  path: "/app/sites/:site_id/members",
  tag: "Members",
  summary: "The people who registered on the project's published site",
  auth: "token",
  params: siteParamsSchema,
  answers: { 200: { description: "The members", schema: memberListSchema } },
  errors: ["not_found"],
});
