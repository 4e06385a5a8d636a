import { z } from "zod";
import { defineOperation } from "../operation.js";
import {
  createPageVersionSchema,
  makeVersionCurrentSchema,
  pageVersionDetailSchema,
  pageVersionListQuerySchema,
  pageVersionListSchema,
  pageVersionSchema,
} from "../schemas/page-versions.js";

const siteParams = z.object({ site_id: z.string() });

export const pageVersionList = defineOperation({
  id: "versions.list",
  method: "GET",
  path: "/app/sites/:site_id/versions",
  tag: "Page versions",
  summary: "The versions of a project's pages (of one page with `kind`), newest first, without HTML",
  auth: "token",
  params: siteParams,
  query: pageVersionListQuerySchema,
  answers: { 200: { description: "The versions", schema: pageVersionListSchema } },
  errors: ["invalid_request"],
});

export const pageVersionGet = defineOperation({
  id: "versions.get",
  method: "GET",
  path: "/app/versions/:version_id",
  tag: "Page versions",
  summary: "One page version, with its HTML",
  auth: "token",
  params: z.object({ version_id: z.string() }),
  answers: { 200: { description: "The version", schema: pageVersionDetailSchema } },
});

export const pageVersionCreate = defineOperation({
  id: "versions.create",
  method: "POST",
  path: "/app/sites/:site_id/versions",
  tag: "Page versions",
  summary: "Adds the owner's own HTML for a page (at most 5 MB); it becomes the page's current version",
  auth: "token",
  params: siteParams,
  body: createPageVersionSchema,
  answers: { 201: { description: "The new version, current", schema: pageVersionSchema } },
  errors: ["invalid_request", "html_too_large", "body_too_large"],
});

export const pageVersionMakeCurrent = defineOperation({
  id: "versions.makeCurrent",
  method: "PUT",
  path: "/app/sites/:site_id/actual",
  tag: "Page versions",
  summary: "Makes an earlier version of a page current again",
  auth: "token",
  params: siteParams,
  body: makeVersionCurrentSchema,
  answers: { 200: { description: "The version, now current", schema: pageVersionSchema } },
  errors: ["invalid_request", "wrong_kind"],
});
