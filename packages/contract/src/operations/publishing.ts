import { defineOperation } from "../operation.js";
import { siteParamsSchema } from "../schemas/projects.js";
import {
  publishPageSchema,
  publishResultSchema,
  publishSchema,
  setSlugSchema,
  slugCheckQuerySchema,
  slugCheckSchema,
  slugViewSchema,
} from "../schemas/publishing.js";

export * from "../schemas/publishing.js";

export const subdomainCheck = defineOperation({
  id: "subdomains.check",
  method: "GET",
  path: "/app/subdomain-check",
  tag: "Publishing",
  summary: "Whether an address (slug) could be a project's now",
  auth: "token",
  query: slugCheckQuerySchema,
  answers: { 200: { description: "Available, or why not", schema: slugCheckSchema } },
});

export const publishingSetSlug = defineOperation({
  id: "publishing.setSlug",
  method: "POST",
  path: "/app/sites/:site_id/slug",
  tag: "Publishing",
  summary: "Give the project an address; a published site moves with it and the old address is freed",
  auth: "token",
  params: siteParamsSchema,
  body: setSlugSchema,
  answers: { 200: { description: "The address", schema: slugViewSchema } },
  errors: ["not_found", "invalid_request", "invalid_slug", "slug_reserved", "slug_taken"],
});

export const publishingPublish = defineOperation({
  id: "publishing.publish",
  method: "POST",
  path: "/app/sites/:site_id/publish",
  tag: "Publishing",
  summary: "Put every current page live at the project's address (one is derived from its name when it has none), sign-in at `/auth`",
  auth: "token",
  params: siteParamsSchema,
  body: publishSchema,
  answers: { 200: { description: "The site's address and its live pages", schema: publishResultSchema } },
  errors: ["not_found", "invalid_request", "nothing_to_publish", "slug_taken"],
});

export const publishingPublishPage = defineOperation({
  id: "publishing.publishPage",
  method: "POST",
  path: "/app/sites/:site_id/publish-page",
  tag: "Publishing",
  summary: "Put one page's current version live; the rest of the site stays as last published",
  auth: "token",
  params: siteParamsSchema,
  body: publishPageSchema,
  answers: { 200: { description: "The site's address and its live pages", schema: publishResultSchema } },
  errors: ["not_found", "invalid_request", "not_published", "nothing_to_publish"],
});
